package devrun

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/yamlobjects"
)

// applyExamples creates every object of the *.yaml files in dir, in file
// name order, that does not exist yet: a restart keeps what the user
// edited. An ExtensionConfig pointing at the default extension address is
// pointed at url instead. It returns one line per failure, naming the file,
// and goes on with the rest.
func applyExamples(ctx context.Context, c client.Client, dir, url string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return []string{err.Error()}
	}
	if len(files) == 0 {
		return []string{fmt.Sprintf("no *.yaml in %s", dir)}
	}
	sort.Strings(files)
	var failures []string
	for _, file := range files {
		objects, err := yamlobjects.ReadFile(file)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", file, err))
		}
		for _, u := range objects {
			pointAtExtension(u, url)
			if err := c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
				failures = append(failures, fmt.Sprintf("%s: %s %s: %v", file, u.GetKind(), objectName(u), err))
			}
		}
	}
	return failures
}

// pointAtExtension rewrites an ExtensionConfig's URL from the default
// extension address to url.
func pointAtExtension(u *unstructured.Unstructured, url string) {
	if u.GetKind() != "ExtensionConfig" {
		return
	}
	current, _, _ := unstructured.NestedString(u.Object, "spec", "clientConfig", "url")
	if current == "https://"+DefaultExtensionAddress && url != current {
		_ = unstructured.SetNestedField(u.Object, url, "spec", "clientConfig", "url")
	}
}

// extensionURL is where the sample extension serves its hooks.
func extensionURL(o Options) string { return "https://" + o.ExtensionAddress }

func objectName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

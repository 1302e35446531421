package devrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
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
		objects, err := readObjects(file)
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

// readObjects decodes every document of a YAML file; a document that does
// not decode is reported with its number, and the others are returned.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var (
		objects []*unstructured.Unstructured
		errs    []error
	)
	for n := 1; ; n++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", n, err))
			break
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", n, err))
			continue
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			errs = append(errs, fmt.Errorf("document %d: no apiVersion or kind", n))
			continue
		}
		objects = append(objects, u)
	}
	return objects, errors.Join(errs...)
}

// stripComments drops comment lines, so a document of comments alone
// counts as empty.
func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.Bytes()
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

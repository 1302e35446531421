/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package manifests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/metrics"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/observe"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/apiservertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managertest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

var env *apiservertest.Env

func TestMain(m *testing.M) { os.Exit(apiservertest.Run(m, &env)) }

const (
	namespace      = "runtime-sdk-system"
	serviceAccount = "system:serviceaccount:runtime-sdk-system:runtime-sdk-controller-manager"
)

// render builds config/default with kustomize, as `kustomize build` would.
func render(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "../../config/default")
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	data, err := resources.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := decoder.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
	return objs
}

// apply creates the Namespace for real (namespaced objects need it even in
// a dry run), then applies the rest server-side, for real or as a dry run.
func apply(t *testing.T, objs []*unstructured.Unstructured, dryRun bool) {
	t.Helper()
	ctx := context.Background()
	// Namespaces first, whatever order kustomize emits.
	ordered := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		if obj.GetKind() == "Namespace" {
			ordered = append(ordered, obj)
		}
	}
	for _, obj := range objs {
		if obj.GetKind() != "Namespace" {
			ordered = append(ordered, obj)
		}
	}
	for _, obj := range ordered {
		opts := []client.ApplyOption{client.FieldOwner("deploy-test"), client.ForceOwnership}
		if dryRun && obj.GetKind() != "Namespace" {
			opts = append(opts, client.DryRunAll)
		}
		if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), opts...); err != nil {
			t.Fatalf("apply %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

func TestDefault_RendersAndAppliesWithServerSideDryRun(t *testing.T) {
	objs := render(t)
	kinds := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		kinds[o.GetKind()] = o
		if o.GetKind() != "Namespace" && o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding" && o.GetNamespace() != namespace {
			t.Errorf("%s %s is in namespace %q, want %s", o.GetKind(), o.GetName(), o.GetNamespace(), namespace)
		}
	}
	for _, kind := range []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service"} {
		if kinds[kind] == nil {
			t.Errorf("rendered manifests lack a %s", kind)
		}
	}
	deployment := kinds["Deployment"]
	if deployment != nil {
		nonRoot, _, _ := unstructured.NestedBool(deployment.Object, "spec", "template", "spec", "securityContext", "runAsNonRoot")
		containers, _, _ := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "containers")
		if !nonRoot || len(containers) != 1 {
			t.Fatalf("deployment: runAsNonRoot %v, %d containers", nonRoot, len(containers))
		}
		c := containers[0].(map[string]any)
		for _, path := range [][]string{{"livenessProbe"}, {"readinessProbe"}, {"resources", "requests"}, {"ports"}} {
			if _, found, _ := unstructured.NestedFieldNoCopy(c, path...); !found {
				t.Errorf("manager container lacks %s", strings.Join(path, "."))
			}
		}
	}
	apply(t, objs, true)
}

// The ServiceAccount the manifests bind observe mode to reads what it
// needs: it counts an ExtensionConfig's events against the ClusterClasses
// that use it, and hits no forbidden error on the way.
func TestDefault_ServiceAccountRunsObserveModeWithoutForbiddenErrors(t *testing.T) {
	apply(t, render(t), false)
	ctx := context.Background()

	impersonated := *env.Config
	impersonated.Impersonate.UserName = serviceAccount
	logs := &polltest.Buffer{}
	startObserver(t, &impersonated, observe.ManagerOptions{Logger: zap.New(zap.WriteTo(logs))})

	ns := env.Namespace(t, nil)
	config := &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "rbac-" + ns},
		Spec:       runtimev1.ExtensionConfigSpec{ClientConfig: runtimev1.ClientConfig{URL: "https://127.0.0.1:1"}, NamespaceSelector: &metav1.LabelSelector{}},
	}
	cc := apiservertest.ClusterClass(ns, "cc", apiservertest.ExternalPatch("external", clusterv1.ExternalPatchDefinition{
		DiscoverVariablesExtension: registration.FullHandlerName("discover-variables", config.Name),
	}))
	if err := env.Client.Create(ctx, cc); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), config) })

	polltest.Eventually(t, time.Minute, "the ExtensionConfig's event counted through the ServiceAccount", func() (bool, string) {
		added := testutil.ToFloat64(metrics.ObservedEvents.WithLabelValues("add"))
		return added >= 1, fmt.Sprintf("%v add events; logs: %s", added, lastLines(logs.String()))
	})
	if strings.Contains(strings.ToLower(logs.String()), "forbidden") {
		t.Errorf("the ServiceAccount hit forbidden errors:\n%s", logs.String())
	}
}

// startObserver runs observe mode's manager with opts, probes off, until
// the test ends.
func startObserver(t *testing.T, cfg *rest.Config, opts observe.ManagerOptions) {
	t.Helper()
	if opts.MetricsBindAddress == "" {
		opts.MetricsBindAddress = "0"
	}
	opts.HealthProbeBindAddress = "0"
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err := observe.NewManager(ctx, cfg, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	managertest.Run(t, ctx, cancel, mgr)
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, " | ")
}

// Metrics are served over HTTPS to callers kube-apiserver authenticates and
// authorises, through the ClusterRole the manifests ship for scrapers; the
// controller's own ServiceAccount may ask kube-apiserver about them.
func TestDefault_MetricsAnswerOnlyATokenBoundToTheReaderRole(t *testing.T) {
	apply(t, render(t), false)
	ctx := context.Background()

	certDir := t.TempDir()
	ca, cert, key, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(certDir, "tls.crt"), cert, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(certDir, "tls.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	impersonated := *env.Config
	impersonated.Impersonate.UserName = serviceAccount
	startObserver(t, &impersonated, observe.ManagerOptions{
		MetricsBindAddress: "127.0.0.1:" + strconv.Itoa(port),
		MetricsSecure:      true,
		MetricsCertDir:     certDir,
	})

	ns := env.Namespace(t, nil)
	token := func(name string) string {
		t.Helper()
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if err := env.Client.Create(ctx, sa); err != nil {
			t.Fatal(err)
		}
		request := &authenticationv1.TokenRequest{}
		if err := env.Client.SubResource("token").Create(ctx, sa, request); err != nil {
			t.Fatalf("token for %s: %v", name, err)
		}
		return request.Status.Token
	}
	scraper, stranger := token("scraper"), token("stranger")
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scrape-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "runtime-sdk-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "scraper"}},
	}
	if err := env.Client.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), binding) })

	tlsConfig, err := sampleextension.ClientTLSConfig(ca)
	if err != nil {
		t.Fatal(err)
	}
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}, Timeout: 10 * time.Second}
	scrape := func(bearer string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:"+strconv.Itoa(port)+"/metrics", nil)
		if err != nil {
			return 0, "", err
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		return resp.StatusCode, string(body), err
	}
	for _, c := range []struct {
		who, token string
		// want are the answers that pass: controller-runtime's filter
		// answers 500 when the TokenReview itself reports an error, as it
		// does for a token it cannot parse.
		want []int
	}{
		{"no token", "", []int{http.StatusUnauthorized}},
		{"a token kube-apiserver does not know", "not-a-token", []int{http.StatusUnauthorized, http.StatusInternalServerError}},
		{"a ServiceAccount without the reader role", stranger, []int{http.StatusForbidden}},
		{"a ServiceAccount bound to the reader role", scraper, []int{http.StatusOK}},
	} {
		polltest.Eventually(t, time.Minute, fmt.Sprintf("%s: HTTP %v", c.who, c.want), func() (bool, string) {
			status, body, err := scrape(c.token)
			if err != nil {
				return false, err.Error()
			}
			if status != http.StatusOK && strings.Contains(body, "runtime_sdk_") {
				t.Fatalf("%s: HTTP %d with the metrics", c.who, status)
			}
			if status == http.StatusOK && !strings.Contains(body, "runtime_sdk_") {
				return false, "HTTP 200 without the controller's metrics"
			}
			return slices.Contains(c.want, status), fmt.Sprintf("HTTP %d: %.200s", status, body)
		})
	}
}

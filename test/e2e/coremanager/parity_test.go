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

package coremanager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/quiet"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capibaseline"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// parityArgs are the flags both managers run with, on top of those
// capibaseline.Start gives every core manager: a replica of a Deployment
// with leader election, and the feature gates under which our three parts
// run at all.
var parityArgs = []string{"--feature-gates=" + capimanagement.FeatureGates, "--leader-elect"}

// The drop-in follows Cluster API's core/main.go by hand: its flags,
// manager options, CRD migrator, worker counts, Lease, health checks and
// webhooks. Both managers run, one after the other, on one control plane
// with the same flags, and what they run that can be seen from outside must
// be the same, but for the few differences our three parts make on purpose
// (expectedDifferences): the controllers and their workers, the Lease, the
// health and ready checks, the CRDs migrated, and the webhook paths of
// Cluster API's core kinds (a handler on a path of no core kind would go
// unseen). Each difference is named.
func TestDropIn_RunsWhatClusterAPIsManagerRunsButForOurThreeParts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane, Cluster API's manager and the drop-in")
	}
	binDir := capimanagement.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	started := time.Now()

	p := startParityControlPlane(ctx, t, binDir)
	capi := p.observe(ctx, t, "capi-baseline", filepath.Join(binDir, capibaseline.Binary))
	ours := p.observe(ctx, t, name, coreManager)
	t.Logf("observed both managers in %s", time.Since(started).Round(100*time.Millisecond))

	// A blind observation would pass as parity: each kind of fact must be
	// there under Cluster API's manager, and the probe must tell a webhook
	// from a path nothing serves.
	facts := slices.Collect(maps.Values(capi))
	for _, kind := range []string{"controller crdmigrator", "leader election Lease", "/healthz check", "/readyz check", "webhook path", "CRD "} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(capi)), func(about string) bool { return strings.HasPrefix(about, kind) }) {
			t.Errorf("nothing observed of %q under Cluster API's manager:\n%s", kind, capi)
		}
	}
	for _, status := range []int{http.StatusOK, http.StatusNotFound} {
		if _, fact := webhookFact("", status); !slices.Contains(facts, fact) {
			t.Errorf("no webhook path %s under Cluster API's manager:\n%s", fact, capi)
		}
	}
	for _, d := range compareAssemblies(capi, ours, expectedDifferences) {
		t.Error(d)
	}
}

// parityControlPlane is the control plane both managers run on, one at a
// time, with the same webhook port and certificate.
type parityControlPlane struct {
	dir        string
	binDir     string
	cluster    *localcluster.Cluster
	c          client.Client
	webhook    capimanagement.Webhook
	certDir    string
	https      *http.Client
	probePaths []string
}

// startParityControlPlane starts etcd and kube-apiserver with Cluster API's
// core CRDs, their conversion webhooks pointing at the port both managers
// serve webhooks on, and the namespace the Lease is in.
func startParityControlPlane(ctx context.Context, t *testing.T, binDir string) *parityControlPlane {
	t.Helper()
	p := &parityControlPlane{dir: t.TempDir(), binDir: binDir}
	port, err := localcluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p.webhook = capimanagement.Webhook{Port: port, CAPEM: caPEM}
	p.certDir = filepath.Join(p.dir, "webhook-certs")
	if err := os.MkdirAll(p.certDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(p.certDir, file), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	p.https = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}

	crds, err := capimanagement.CRDs(binDir, capimanagement.Core, &p.webhook)
	if err != nil {
		t.Fatal(err)
	}
	configurations, err := capimanagement.WebhookConfigurations(binDir, capimanagement.Core, p.webhook)
	if err != nil {
		t.Fatal(err)
	}
	if p.probePaths, err = webhookPaths(crds, configurations); err != nil {
		t.Fatal(err)
	}

	p.cluster, err = localcluster.Start(ctx, localcluster.Options{Dir: filepath.Join(p.dir, "cluster"), BinDir: binDir, CRDs: crds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cluster.Stop() })
	if p.c, err = client.New(p.cluster.Config(), client.Options{Scheme: scheme.New()}); err != nil {
		t.Fatal(err)
	}
	if err := p.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNamespace}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// webhookPaths are the paths of every webhook of Cluster API's core
// configuration, admission and conversion, and every path controller-runtime
// would give a defaulting or validating webhook of a core kind at any of
// its versions, so that one served but not configured counts too: each
// once, in order.
func webhookPaths(crds []*apiextensionsv1.CustomResourceDefinition, configurations []*unstructured.Unstructured) ([]string, error) {
	var urls, paths []string
	for _, crd := range crds {
		if conv := crd.Spec.Conversion; conv != nil && conv.Webhook != nil && conv.Webhook.ClientConfig != nil && conv.Webhook.ClientConfig.URL != nil {
			urls = append(urls, *conv.Webhook.ClientConfig.URL)
		}
		for _, v := range crd.Spec.Versions {
			// controller-runtime's generated path, as its builder names it.
			gvk := strings.ReplaceAll(crd.Spec.Group, ".", "-") + "-" + v.Name + "-" + strings.ToLower(crd.Spec.Names.Kind)
			paths = append(paths, "/mutate-"+gvk, "/validate-"+gvk)
		}
	}
	for _, c := range configurations {
		webhooks, _, err := unstructured.NestedSlice(c.Object, "webhooks")
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.GetKind(), c.GetName(), err)
		}
		for _, w := range webhooks {
			hook, _ := w.(map[string]any)
			u, _, _ := unstructured.NestedString(hook, "clientConfig", "url")
			urls = append(urls, u)
		}
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Path == "" {
			return nil, fmt.Errorf("webhook URL %q names no path", raw)
		}
		paths = append(paths, u.Path)
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// observe runs binary as a replica of Cluster API's Deployment on the
// control plane, reads what it runs once it leads and its CRD migrator is
// done, stops it and removes its Lease, so that the next manager leads at
// once. Every CRD is reset first, so that each manager's CRD migrator
// finds the same work: no mark, and a version beside the storage version
// in storedVersions, as after an upgrade of Cluster API.
func (p *parityControlPlane) observe(ctx context.Context, t *testing.T, name, binary string) assembly {
	t.Helper()
	crdNames := p.resetMigration(ctx, t)
	before := p.leases(ctx, t)
	logPath := filepath.Join(p.dir, name+".log")
	m, err := capibaseline.Start(ctx, capibaseline.Options{
		BinDir: p.binDir, Binary: inCluster(t, binary, leaseNamespace), Kubeconfig: p.cluster.KubeconfigPath(), LogPath: logPath,
		WebhookPort: p.webhook.Port, WebhookCertDir: p.certDir, Args: parityArgs,
	})
	if err != nil {
		t.Fatalf("%s: %v%s", name, err, logTail(logPath))
	}
	t.Cleanup(m.Stop)

	a := assembly{}
	controllers := p.controllers(ctx, t, name, m)
	for controller, workers := range controllers {
		a.add(controllerFact(controller, workers))
	}
	held := p.heldLeases(ctx, t, before)
	for _, lease := range held {
		a.add(leaseFact(lease.Namespace, lease.Name))
	}
	for _, endpoint := range []string{"healthz", "readyz"} {
		for _, check := range p.checks(ctx, t, m.HealthURL(), endpoint) {
			a.add(checkFact(endpoint, check))
		}
	}
	for _, path := range p.probePaths {
		a.add(webhookFact(path, p.probe(ctx, t, path)))
	}
	if _, ok := controllers["crdmigrator"]; ok {
		p.waitForMigration(ctx, t, name, m, len(crdNames))
	}
	p.migrations(ctx, t, crdNames, a)

	m.Stop()
	for _, lease := range held {
		if err := p.c.Delete(ctx, &lease); err != nil {
			t.Fatalf("delete the Lease %s/%s %s held: %v", lease.Namespace, lease.Name, name, err)
		}
	}
	return a
}

// logTail is the end of a manager's log, for a failure to explain itself:
// the log goes with the test's directory.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return "\nits log, last 30 lines:\n" + proctest.Tail(string(data), 30)
}

// resetMigration takes the CRD migrator's mark off every CRD and adds the
// served versions to storedVersions, and returns the CRDs' names.
func (p *parityControlPlane) resetMigration(ctx context.Context, t *testing.T) []string {
	t.Helper()
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := p.c.List(ctx, crds); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range crds.Items {
		crd := &crds.Items[i]
		names = append(names, crd.Name)
		if _, ok := crd.Annotations[clusterv1.CRDMigrationObservedGenerationAnnotation]; ok {
			delete(crd.Annotations, clusterv1.CRDMigrationObservedGenerationAnnotation)
			if err := p.c.Update(ctx, crd); err != nil {
				t.Fatalf("unmark CRD %s: %v", crd.Name, err)
			}
		}
		var versions []string
		for _, v := range crd.Spec.Versions {
			versions = append(versions, v.Name)
		}
		crd.Status.StoredVersions = versions
		if err := p.c.Status().Update(ctx, crd); err != nil {
			t.Fatalf("set storedVersions of CRD %s: %v", crd.Name, err)
		}
	}
	return names
}

// leases lists every Lease, by namespace/name.
func (p *parityControlPlane) leases(ctx context.Context, t *testing.T) map[string]bool {
	t.Helper()
	leases := &coordinationv1.LeaseList{}
	if err := p.c.List(ctx, leases); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, l := range leases.Items {
		names[l.Namespace+"/"+l.Name] = true
	}
	return names
}

// heldLeases are the Leases that were not there before, and who holds
// each: the manager leads, so every Lease it took is held.
func (p *parityControlPlane) heldLeases(ctx context.Context, t *testing.T, before map[string]bool) []coordinationv1.Lease {
	t.Helper()
	leases := &coordinationv1.LeaseList{}
	if err := p.c.List(ctx, leases); err != nil {
		t.Fatal(err)
	}
	var held []coordinationv1.Lease
	for _, l := range leases.Items {
		// kube-apiserver keeps its identity Lease in kube-system and may
		// renew it under a new name at any time; it is no manager's.
		if before[l.Namespace+"/"+l.Name] || l.Namespace == metav1.NamespaceSystem {
			continue
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			t.Errorf("the Lease %s/%s is held by no one while its manager leads", l.Namespace, l.Name)
		}
		held = append(held, l)
	}
	return held
}

// controllers waits until the manager leads and the controllers it runs
// stop changing, and returns each with its workers. A controller reports
// its workers the moment it starts, and all start together once the
// Lease is taken: a few quiet seconds after that, the list is whole.
func (p *parityControlPlane) controllers(ctx context.Context, t *testing.T, name string, m *capibaseline.Manager) map[string]int {
	t.Helper()
	workers, _, err := quiet.Wait(ctx, quiet.Options{Quiet: 2 * time.Second, Timeout: time.Minute, Interval: 250 * time.Millisecond},
		maps.Equal[map[string]int],
		func() (map[string]int, bool, error) {
			metrics, err := m.Scrape(ctx)
			if err != nil {
				return nil, false, err
			}
			workers := map[string]int{}
			for controller, n := range metrics.ByLabel("controller_runtime_max_concurrent_reconciles", "controller") {
				workers[controller] = int(n)
			}
			leads := slices.Contains(slices.Collect(maps.Values(metrics.ByLabel("leader_election_master_status", "name"))), 1)
			return workers, leads && len(workers) > 0, nil
		})
	if err != nil {
		t.Fatalf("%s: wait until it leads and runs its controllers: %v (controllers so far: %v)%s", name, err, workers, logTail(m.LogPath()))
	}
	return workers
}

// checks lists the names of the health or ready checks the manager
// serves, from controller-runtime's verbose answer ("[+]webhook ok").
func (p *parityControlPlane) checks(ctx context.Context, t *testing.T, healthURL, endpoint string) []string {
	t.Helper()
	body, status := request(ctx, t, &http.Client{Timeout: 10 * time.Second}, healthURL+"/"+endpoint+"?verbose", "")
	if status != http.StatusOK {
		t.Fatalf("/%s?verbose: HTTP %d: %s", endpoint, status, body)
	}
	var names []string
	for _, m := range checkLine.FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

// checkLine is one check in controller-runtime's verbose health answer.
var checkLine = regexp.MustCompile(`(?m)^\[[+-]\](\S+) `)

// probe sends path a body no handler accepts and returns the HTTP status:
// a webhook handler answers (an admission webhook with 200 and the error
// inside), and a path nothing serves 404. No handler gets to run.
func (p *parityControlPlane) probe(ctx context.Context, t *testing.T, path string) int {
	t.Helper()
	_, status := request(ctx, t, p.https, "https://127.0.0.1:"+strconv.Itoa(p.webhook.Port)+path, "{}")
	return status
}

// request sends a GET, or with a body a POST of text/plain, and returns the
// answer's body and status.
func request(ctx context.Context, t *testing.T, c *http.Client, u, body string) (string, int) {
	t.Helper()
	method, reader := http.MethodGet, io.Reader(nil)
	if body != "" {
		method, reader = http.MethodPost, strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, reader)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "text/plain")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	return string(data), resp.StatusCode
}

// waitForMigration waits until the CRD migrator has reconciled every CRD
// and has nothing left queued or running. Its first pass takes every CRD
// once; the marks it writes queue some again, which change nothing.
func (p *parityControlPlane) waitForMigration(ctx context.Context, t *testing.T, name string, m *capibaseline.Manager, crds int) {
	t.Helper()
	type progress struct{ reconciles, queued, running float64 }
	migrator := map[string]string{"controller": "crdmigrator"}
	last, _, err := quiet.Wait(ctx, quiet.Options{Quiet: time.Second, Timeout: time.Minute, Interval: 250 * time.Millisecond},
		quiet.Equal[progress],
		func() (progress, bool, error) {
			metrics, err := m.Scrape(ctx)
			if err != nil {
				return progress{}, false, err
			}
			now := progress{
				reconciles: metrics.Sum("controller_runtime_reconcile_total", migrator),
				queued:     metrics.Sum("workqueue_depth", map[string]string{"name": "crdmigrator"}),
				running:    metrics.Sum("controller_runtime_active_workers", migrator),
			}
			return now, now.reconciles >= float64(crds) && now.queued == 0 && now.running == 0, nil
		})
	if err != nil {
		t.Fatalf("%s: wait for the CRD migrator to reconcile %d CRDs: %v (%+v)%s", name, crds, err, last, logTail(m.LogPath()))
	}
}

// migrations adds what the CRD migrator left on each CRD: its mark, and
// storedVersions.
func (p *parityControlPlane) migrations(ctx context.Context, t *testing.T, names []string, a assembly) {
	t.Helper()
	for _, n := range names {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := p.c.Get(ctx, client.ObjectKey{Name: n}, crd); err != nil {
			t.Fatal(err)
		}
		a.add(crdMarkFact(n, crd.Annotations[clusterv1.CRDMigrationObservedGenerationAnnotation]))
		a.add(storedVersionsFact(n, crd.Status.StoredVersions))
	}
}

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

package capinode

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
)

// Management is Cluster API's components running as Pods on the node.
type Management struct {
	c      client.Client
	cs     kubernetes.Interface
	config *rest.Config
	certs  *certManagerStandIn
	// stopStandIn stops the stand-in and waits until its pass is over.
	stopStandIn func()
	// cas are the CAs of the components' serving certificates, by
	// component name, as the stand-in issued them.
	cas     map[string][]byte
	timeout time.Duration
	// metricsPort is where every manager serves its metrics.
	metricsPort string
	mu          sync.Mutex
	// expected are the restarts a fault caused, by Pod and container:
	// Exited reports only more than these.
	expected map[string]int32
}

// Close stops cert-manager's stand-in; the next install's starts afresh.
func (m *Management) Close() { m.stopStandIn() }

// Client is a cluster-admin client.
func (m *Management) Client() client.Client { return m.c }

// Exited reports a component whose container restarted more often than
// ExpectRestarts allowed: a crash, an exit on a lost lease, or a failed
// liveness probe that no fault of the test's caused.
func (m *Management) Exited() error {
	ctx := context.Background()
	for _, comp := range Components {
		pods, err := m.pods(ctx, comp)
		if err != nil {
			continue // a transient read error is not an exit
		}
		for _, p := range pods {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.RestartCount > m.expectedRestarts(p.Name, cs.Name) {
					last := ""
					if t := cs.LastTerminationState.Terminated; t != nil {
						last = fmt.Sprintf(": last ended %s, exit %d: %s", t.Reason, t.ExitCode, lastLines(t.Message, 5))
					}
					return fmt.Errorf("%s Pod %s restarted %d times%s", comp.Name, p.Name, cs.RestartCount, last)
				}
			}
		}
	}
	return nil
}

// TestExtensionConfig registers Cluster API's test extension through its
// Service, with the stand-in's CA, as its e2e does.
func (m *Management) TestExtensionConfig(name string, namespaces ...string) *runtimev1.ExtensionConfig {
	selector := &metav1.LabelSelector{}
	if len(namespaces) > 0 {
		selector.MatchExpressions = []metav1.LabelSelectorRequirement{{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: namespaces,
		}}
	}
	port := int32(443)
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig: runtimev1.ClientConfig{
				Service: runtimev1.ServiceReference{
					Namespace: TestExtension.Namespace, Name: TestExtension.webhookService(), Port: &port,
				},
				CABundle: m.cas[TestExtension.Name],
			},
			NamespaceSelector: selector,
			Settings: map[string]string{
				"extensionConfigName":          name,
				"defaultAllHandlersToBlocking": "false",
			},
		},
	}
}

// Scrape reads the metrics of the core manager's leader or of the test
// extension, from its Pod, over plain HTTP (CAPI_INSECURE_DIAGNOSTICS).
func (m *Management) Scrape(ctx context.Context, name string) (managerprocess.Metrics, error) {
	comp, ok := byScrapeName[name]
	if !ok {
		return nil, fmt.Errorf("no component is scraped as %q", name)
	}
	var pod *corev1.Pod
	if comp == Core {
		leader, err := m.Leader(ctx)
		if err != nil {
			return nil, err
		}
		p, err := m.cs.CoreV1().Pods(comp.Namespace).Get(ctx, leader, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		pod = p
	} else {
		pods, err := m.pods(ctx, comp)
		if err != nil {
			return nil, err
		}
		if len(pods) != 1 {
			return nil, fmt.Errorf("%d Pods of %s, want one", len(pods), comp.Name)
		}
		pod = &pods[0]
	}
	if pod.Status.PodIP == "" {
		return nil, fmt.Errorf("the Pod %s has no address yet", pod.Name)
	}
	return managerprocess.Scrape(ctx, "http://"+net.JoinHostPort(pod.Status.PodIP, m.metricsPort)+"/metrics")
}

// LeaseHolder is the core manager's Lease's holder identity (the Pod's
// name, an underscore and a UUID each process draws, so that a restarted
// container holds it under another) and when it last renewed it.
func (m *Management) LeaseHolder(ctx context.Context) (string, time.Time, error) {
	lease := &coordinationv1.Lease{}
	if err := m.c.Get(ctx, client.ObjectKey{Namespace: Core.Namespace, Name: leaseName}, lease); err != nil {
		return "", time.Time{}, err
	}
	holder, renewed := "", time.Time{}
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.RenewTime != nil {
		renewed = lease.Spec.RenewTime.Time
	}
	return holder, renewed, nil
}

// leaseName is the core manager's leader election Lease, Cluster API's and
// the drop-in's alike.
const leaseName = "controller-leader-election-capi"

// Leader is the name of the Pod holding the core manager's Lease (its
// identity is the Pod's name, an underscore and a UUID).
func (m *Management) Leader(ctx context.Context) (string, error) {
	lease := &coordinationv1.Lease{}
	if err := m.c.Get(ctx, client.ObjectKey{Namespace: Core.Namespace, Name: leaseName}, lease); err != nil {
		return "", err
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return "", fmt.Errorf("the Lease %s has no holder", leaseName)
	}
	holder, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return holder, nil
}

// DeleteLeader deletes the core manager's leading Pod with grace period
// 0, as a node failure would end it, and returns the new leader and how
// long the Lease took to pass to it.
func (m *Management) DeleteLeader(ctx context.Context) (string, time.Duration, error) {
	leader, err := m.Leader(ctx)
	if err != nil {
		return "", 0, err
	}
	began := time.Now()
	if err := m.cs.CoreV1().Pods(Core.Namespace).Delete(ctx, leader, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		return "", 0, err
	}
	var next string
	err = polltest.WithinContext(ctx, 3*time.Minute, "another Pod to take the core manager's Lease from "+leader, func() (bool, string) {
		holder, err := m.Leader(ctx)
		if err != nil {
			return false, err.Error()
		}
		next = holder
		return holder != leader, "held by " + holder
	})
	took := time.Since(began)
	if err != nil {
		return "", took, err
	}
	// The Deployment replaces the Pod; the flow goes on once the webhook
	// Service no longer leads to the one deleted.
	if err := m.WaitRolledOut(ctx, Core); err != nil {
		return "", took, err
	}
	return next, took, m.waitWebhookServed(ctx, Core)
}

// SetCoreImage swaps the core Deployment's image on the live cluster, as
// an operator would (kubectl set image), and waits for the rollout.
func (m *Management) SetCoreImage(ctx context.Context, image string) error {
	// The Deployment controller writes its status meanwhile: read again on
	// a conflict.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := m.cs.AppsV1().Deployments(Core.Namespace).Get(ctx, Core.Deployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range d.Spec.Template.Spec.Containers {
			if d.Spec.Template.Spec.Containers[i].Name == "manager" {
				d.Spec.Template.Spec.Containers[i].Image = image
			}
		}
		_, err = m.cs.AppsV1().Deployments(Core.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return err
	}
	return m.WaitServed(ctx, Core)
}

// WaitServed waits until the component is rolled out and its webhook
// Service leads only to its current Pods, served with its Certificate's CA.
func (m *Management) WaitServed(ctx context.Context, comp Component) error {
	if err := m.WaitRolledOut(ctx, comp); err != nil {
		return err
	}
	return m.waitWebhookServed(ctx, comp)
}

// CoreImage is the image of the core Deployment's manager container.
func (m *Management) CoreImage(ctx context.Context) (string, error) {
	d, err := m.cs.AppsV1().Deployments(Core.Namespace).Get(ctx, Core.Deployment, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "manager" {
			return c.Image, nil
		}
	}
	return "", fmt.Errorf("the Deployment %s has no container named manager", Core.Deployment)
}

// ImageIDs returns, for each of the component's Pods, the image ID
// kubelet reports for its manager container: for an image imported by
// name only, as the node's are, the digest of the config of the platform
// containerd picked.
func (m *Management) ImageIDs(ctx context.Context, comp Component) (map[string]string, error) {
	pods, err := m.pods(ctx, comp)
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for _, p := range pods {
		for _, c := range p.Status.ContainerStatuses {
			if c.Name == "manager" {
				ids[p.Name] = c.ImageID
			}
		}
	}
	return ids, nil
}

// servingCA reads the CA of the component's serving certificate from the
// Secret its Certificate names.
func (m *Management) servingCA(ctx context.Context, comp Component) ([]byte, error) {
	cert := &unstructured.Unstructured{}
	cert.SetGroupVersionKind(schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"})
	if err := m.c.Get(ctx, client.ObjectKey{Namespace: comp.Namespace, Name: comp.servingCert()}, cert); err != nil {
		return nil, fmt.Errorf("%s: the Certificate %s: %w", comp.Name, comp.servingCert(), err)
	}
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	secret := &corev1.Secret{}
	if err := m.c.Get(ctx, client.ObjectKey{Namespace: comp.Namespace, Name: secretName}, secret); err != nil {
		return nil, fmt.Errorf("%s: the Secret of Certificate %s (stand-in: %v): %w", comp.Name, comp.servingCert(), m.certs.Err(), err)
	}
	if len(secret.Data["ca.crt"]) == 0 {
		return nil, fmt.Errorf("%s: the Secret %s has no ca.crt", comp.Name, secretName)
	}
	return secret.Data["ca.crt"], nil
}

// waitWebhookServed waits until the component's webhook Service's
// endpoints are its current Pods, all ready, every object asking for its
// serving certificate's CA has it, and a TLS handshake through
// its cluster address, verified with the stand-in's CA, succeeds several
// times in a row: until kube-proxy has caught up, a new Service refuses
// connections, and after a rollout a request can still go to a Pod that is
// gone, and the apiserver's call to the webhook then times out.
func (m *Management) waitWebhookServed(ctx context.Context, comp Component) error {
	service := comp.webhookService()
	svc, err := m.cs.CoreV1().Services(comp.Namespace).Get(ctx, service, metav1.GetOptions{})
	if err != nil {
		return err
	}
	ca, err := m.servingCA(ctx, comp)
	if err != nil {
		return err
	}
	m.cas[comp.Name] = ca
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	tlsConfig := &tls.Config{RootCAs: pool, ServerName: service + "." + comp.Namespace + ".svc", MinVersion: tls.VersionTLS12}
	inARow := 0
	return polltest.WithinContext(ctx, time.Minute, "the "+service+" Service to lead only to "+comp.Name+"'s current Pods", func() (bool, string) {
		pods, err := m.pods(ctx, comp)
		if err != nil {
			return false, err.Error()
		}
		current := map[string]bool{}
		for _, p := range pods {
			current[p.Status.PodIP] = true
		}
		slices, err := m.cs.DiscoveryV1().EndpointSlices(comp.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + service})
		if err != nil {
			return false, err.Error()
		}
		served := 0
		for _, slice := range slices.Items {
			for _, e := range slice.Endpoints {
				for _, address := range e.Addresses {
					if !current[address] {
						inARow = 0
						return false, "the endpoints still name " + address
					}
					if e.Conditions.Ready != nil && *e.Conditions.Ready {
						served++
					}
				}
			}
		}
		if served != len(pods) {
			inARow = 0
			return false, fmt.Sprintf("%d ready endpoints for %d Pods", served, len(pods))
		}
		// The apiserver calls the webhooks with the CA injected into their
		// configurations and CRDs: until the stand-in's next pass after an
		// object is re-created, it does not trust the server.
		missing, err := CAInjected(ctx, m.c, comp.Namespace+"/"+comp.servingCert(), ca)
		if err != nil || len(missing) > 0 {
			inARow = 0
			return false, fmt.Sprintf("the CA not yet injected into %s (%v; stand-in: %v)", strings.Join(missing, ", "), err, m.certs.Err())
		}
		dialer := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 2 * time.Second}, Config: tlsConfig}
		conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort(svc.Spec.ClusterIP, "443"))
		if err != nil {
			inARow = 0
			return false, err.Error()
		}
		conn.Close()
		inARow++
		return inARow >= 5, fmt.Sprintf("%d handshakes in a row", inARow)
	})
}

// rbacRefusal matches the apiserver's authorization refusal as a client
// logs it: `<resource> is forbidden: User "<name>" cannot <verb> ...`, or
// `forbidden: User "<name>" cannot get path ...` for a path that is not a
// resource, the quotes escaped where klog writes the error as a quoted
// value.
// Not every "Forbidden" is one: validation refuses a new finalizer on an
// object being deleted with "metadata.finalizers: Forbidden: ...", which
// Cluster API's own MachineSet controller logs during a scale.
var rbacRefusal = regexp.MustCompile(`forbidden: User \\?"[^"]*" cannot `)

// Forbidden returns every line of the logs of every component's current
// Pods in which the apiserver's authorization refused a request: Cluster
// API's own RBAC must be enough for each. A container a fault restarted
// (ExpectRestarts) has its previous log read too.
func (m *Management) Forbidden(ctx context.Context) ([]string, error) {
	var found []string
	for _, comp := range Components {
		pods, err := m.pods(ctx, comp)
		if err != nil {
			return nil, err
		}
		for _, p := range pods {
			lines, err := m.matchingLines(ctx, comp, p.Name, false, rbacRefusal)
			if err != nil {
				return nil, err
			}
			found = append(found, lines...)
			if restarted(p, "manager") {
				lines, err := m.matchingLines(ctx, comp, p.Name, true, rbacRefusal)
				if err != nil {
					return nil, err
				}
				found = append(found, lines...)
			}
		}
	}
	return found, nil
}

// matchingLines returns the lines of a Pod's manager log, or of its
// previous container's, that match re, each after the Pod's name.
func (m *Management) matchingLines(ctx context.Context, comp Component, pod string, previous bool, re *regexp.Regexp) ([]string, error) {
	stream, err := m.cs.CoreV1().Pods(comp.Namespace).GetLogs(pod, &corev1.PodLogOptions{Container: "manager", Previous: previous}).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("logs of %s (previous: %v): %w", pod, previous, err)
	}
	defer stream.Close()
	var found []string
	scanner := bufio.NewScanner(stream)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		if line := scanner.Text(); re.MatchString(line) {
			found = append(found, pod+": "+line)
		}
	}
	return found, scanner.Err()
}

// PreviousLogTail is the last lines of the log of the Pod's previous
// manager container: why a restarted container ended.
func (m *Management) PreviousLogTail(ctx context.Context, comp Component, pod string, lines int64) (string, error) {
	stream, err := m.cs.CoreV1().Pods(comp.Namespace).GetLogs(pod, &corev1.PodLogOptions{Container: "manager", Previous: true, TailLines: &lines}).Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("previous log of %s: %w", pod, err)
	}
	defer stream.Close()
	data, err := io.ReadAll(io.LimitReader(stream, 1<<20))
	return strings.TrimRight(string(data), "\n"), err
}

// Incarnation names the one Pod of a component and its manager
// container's restarts: a new incarnation starts its metrics afresh.
func (m *Management) Incarnation(ctx context.Context, comp Component) (string, error) {
	pods, err := m.pods(ctx, comp)
	if err != nil {
		return "", err
	}
	if len(pods) != 1 {
		return "", fmt.Errorf("%d Pods of %s, want one", len(pods), comp.Name)
	}
	for _, cs := range pods[0].Status.ContainerStatuses {
		if cs.Name == "manager" {
			return fmt.Sprintf("%s, restart %d", pods[0].Name, cs.RestartCount), nil
		}
	}
	return "", fmt.Errorf("the Pod %s has no manager container", pods[0].Name)
}

// restarted says whether the Pod's container of that name ever restarted.
func restarted(p corev1.Pod, container string) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container && cs.RestartCount > 0 {
			return true
		}
	}
	return false
}

// LogTail is the last lines of a component's Pods' logs, for a failure.
func (m *Management) LogTail(ctx context.Context, comp Component, lines int64) string {
	pods, err := m.pods(ctx, comp)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, p := range pods {
		stream, err := m.cs.CoreV1().Pods(comp.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: "manager", TailLines: &lines}).Stream(ctx)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", p.Name, err)
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(stream, 1<<20))
		stream.Close()
		fmt.Fprintf(&b, "--- %s\n%s", p.Name, data)
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// PodUsage is what kubelet reports of one Pod's manager container.
type PodUsage struct {
	Image string
	// CPUSeconds is the CPU time the container used since it started.
	CPUSeconds float64
	// WorkingSetBytes is its memory working set now.
	WorkingSetBytes float64
}

// CoreUsage reads, from kubelet's resource metrics (through the
// apiserver's proxy to the node), the core manager's containers' CPU time
// and memory, by Pod.
func (m *Management) CoreUsage(ctx context.Context, node string) (map[string]PodUsage, error) {
	httpClient, err := rest.HTTPClientFor(m.config)
	if err != nil {
		return nil, err
	}
	metrics, err := managerprocess.ScrapeWith(ctx, httpClient, m.config.Host+"/api/v1/nodes/"+node+"/proxy/metrics/resource")
	if err != nil {
		return nil, err
	}
	pods, err := m.pods(ctx, Core)
	if err != nil {
		return nil, err
	}
	usage := map[string]PodUsage{}
	for _, p := range pods {
		labels := map[string]string{"namespace": Core.Namespace, "pod": p.Name, "container": "manager"}
		image := ""
		for _, c := range p.Spec.Containers {
			if c.Name == "manager" {
				image = c.Image
			}
		}
		usage[p.Name] = PodUsage{
			Image:           image,
			CPUSeconds:      metrics.Sum("container_cpu_usage_seconds_total", labels),
			WorkingSetBytes: metrics.Sum("container_memory_working_set_bytes", labels),
		}
	}
	return usage, nil
}

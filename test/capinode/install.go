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
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/scheme"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// Options install the components.
type Options struct {
	// BinDir holds make capi-providers' rendering and clusterctl, and make
	// clusterctl-repository's repositories and cert-manager's CRDs.
	BinDir string
	// Config is a cluster-admin of the node's cluster.
	Config *rest.Config
	// CoreImage is the core Deployment's image: DropInImage or
	// ClusterAPICoreImage.
	CoreImage string
	// CoreReplicas is the core Deployment's replicas; zero keeps the
	// components file's one.
	CoreReplicas int32
	// Variables replace Variables when set.
	Variables map[string]string
	// Timeout bounds each component's rollout.
	Timeout time.Duration
	// Progress gets a line per component installed.
	Progress io.Writer
}

// fieldOwner is the harness's name in managedFields.
const fieldOwner = "rsc-node"

// Variables are the values clusterctl substitutes into the components
// files (every other variable keeps its default, as with clusterctl init
// and no configuration): the feature gates the process-based flow runs
// every manager with (capimanagement.FeatureGates: ClusterTopology,
// RuntimeSDK, MachineTaintPropagation), so that the two flows compare, and
// plain-HTTP diagnostics on :8080, as Cluster API's e2e sets them, from
// which the flow reads metrics without a token.
var Variables = map[string]string{
	"CLUSTER_TOPOLOGY":              "true",
	"EXP_RUNTIME_SDK":               "true",
	"EXP_MACHINE_TAINT_PROPAGATION": "true",
	diagnosticsAddress:              ":8080",
	"CAPI_INSECURE_DIAGNOSTICS":     "true",
}

// diagnosticsAddress is the variable of the managers' metrics address.
const diagnosticsAddress = "CAPI_DIAGNOSTICS_ADDRESS"

// Install installs cert-manager's CRDs, starts cert-manager's stand-in,
// renders and applies every component and waits for it; see the package's
// documentation for what it changes. Once the stand-in runs, the
// Management is returned with any error, to be closed.
func Install(ctx context.Context, o Options) (*Management, error) {
	m, vars, err := newManagement(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, comp := range Components {
		began := time.Now()
		objects, err := capimanagement.RenderFile(ctx, o.BinDir, comp.componentsFile(o.BinDir), vars)
		if err != nil {
			return m, fmt.Errorf("%s: %w", comp.Name, err)
		}
		image, replicas := comp.Image, int32(0)
		if comp == Core {
			image, replicas = o.CoreImage, o.CoreReplicas
		}
		if err := m.apply(ctx, comp, objects, image, replicas); err != nil {
			return m, fmt.Errorf("%s: %w", comp.Name, err)
		}
		fmt.Fprintf(o.Progress, "%s applied (%d objects) in %.1fs\n", comp.Name, len(objects), time.Since(began).Seconds())
	}
	return m, m.waitAll(ctx, o.Progress)
}

// Attach serves components someone else installs (clusterctl init, the
// Cluster API Operator) as a Management: it installs cert-manager's CRDs,
// starts cert-manager's stand-in, runs install, and waits until every
// component is rolled out and its webhook served. Options.Variables must
// be what the installer substitutes (the metrics address among them);
// CoreImage, CoreReplicas and the render are not used. The Management is
// returned with any error once the stand-in runs, to be closed and for its
// logs.
func Attach(ctx context.Context, o Options, install func(*Management) error) (*Management, error) {
	m, _, err := newManagement(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := install(m); err != nil {
		return m, err
	}
	return m, m.waitAll(ctx, o.Progress)
}

// newManagement installs cert-manager's CRDs and starts its stand-in,
// which runs until ctx ends.
func newManagement(ctx context.Context, o Options) (*Management, map[string]string, error) {
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	c, err := client.New(o.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(o.Config)
	if err != nil {
		return nil, nil, err
	}
	vars := Variables
	if o.Variables != nil {
		vars = o.Variables
	}
	_, metricsPort, err := net.SplitHostPort(vars[diagnosticsAddress])
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", diagnosticsAddress, err)
	}
	if err := InstallCertManagerCRDs(ctx, c, o.BinDir, time.Minute); err != nil {
		return nil, nil, err
	}
	certs, stop := startCertManagerStandIn(ctx, c)
	fmt.Fprintln(o.Progress, "cert-manager: its own CRDs are real, its controllers are not: the harness's stand-in writes each Certificate's Secret and injects its CA")
	m := &Management{c: c, cs: cs, config: o.Config, certs: certs, stopStandIn: stop, cas: map[string][]byte{}, timeout: o.Timeout, metricsPort: metricsPort}
	return m, vars, nil
}

// waitAll waits for every component's rollout and webhook Service.
func (m *Management) waitAll(ctx context.Context, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	for _, comp := range Components {
		began := time.Now()
		if err := m.WaitServed(ctx, comp); err != nil {
			return err
		}
		fmt.Fprintf(progress, "%s rolled out and its webhook Service served in %.1fs more\n", comp.Name, time.Since(began).Seconds())
	}
	return nil
}

// apply applies the objects of one component, namespaces and CRDs first
// (and waits for the CRDs), with the Deployment's image and pull policy
// set, and its replicas when non-zero.
func (m *Management) apply(ctx context.Context, comp Component, objects []*unstructured.Unstructured, image string, replicas int32) error {
	order := func(u *unstructured.Unstructured) int {
		switch u.GetKind() {
		case "Namespace":
			return 0
		case "CustomResourceDefinition":
			return 1
		}
		return 2
	}
	var crds []string
	deployments := 0
	for pass := 0; pass < 3; pass++ {
		if pass == 2 {
			if err := waitEstablished(ctx, m.c, crds, time.Minute); err != nil {
				return err
			}
		}
		for _, u := range objects {
			if order(u) != pass {
				continue
			}
			if u.GetKind() == "Deployment" {
				deployments++
				if u.GetName() != comp.Deployment {
					return fmt.Errorf("the Deployment is %s, want %s", u.GetName(), comp.Deployment)
				}
				if err := setImage(u, image, replicas); err != nil {
					return err
				}
			}
			if u.GetKind() == "CustomResourceDefinition" {
				crds = append(crds, u.GetName())
			}
			if err := m.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
				return fmt.Errorf("apply %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
			}
		}
	}
	if deployments != 1 {
		return fmt.Errorf("%d Deployments in the components file, want one", deployments)
	}
	return nil
}

// setImage sets the manager container's image and, as Cluster API's
// release does (make set-manifest-pull-policy), IfNotPresent.
func setImage(u *unstructured.Unstructured, image string, replicas int32) error {
	containers, _, err := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	if err != nil {
		return err
	}
	found := false
	for i := range containers {
		container, _ := containers[i].(map[string]any)
		if container["name"] == "manager" {
			container["image"] = image
			container["imagePullPolicy"] = string(corev1.PullIfNotPresent)
			found = true
		}
	}
	if !found {
		return fmt.Errorf("the Deployment %s has no container named manager", u.GetName())
	}
	if err := unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		return err
	}
	if replicas > 0 {
		return unstructured.SetNestedField(u.Object, int64(replicas), "spec", "replicas")
	}
	return nil
}

// waitEstablished waits until every named CRD is served.
func waitEstablished(ctx context.Context, c client.Client, names []string, timeout time.Duration) error {
	return polltest.WithinContext(ctx, timeout, "CRDs established", func() (bool, string) {
		for _, name := range names {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return false, err.Error()
			}
			established := false
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			if !established {
				return false, name + " not established"
			}
		}
		return true, ""
	})
}

// WaitRolledOut waits until the component's Deployment has every replica
// updated and available and no Pod of an older template is left; a Pod
// that cannot start says why (an image missing from the node, a crash).
func (m *Management) WaitRolledOut(ctx context.Context, comp Component) error {
	var cannotPull error
	err := polltest.WithinContext(ctx, m.timeout, comp.Deployment+" rolled out", func() (bool, string) {
		d := &appsv1.Deployment{}
		if err := m.c.Get(ctx, client.ObjectKey{Namespace: comp.Namespace, Name: comp.Deployment}, d); err != nil {
			return false, err.Error()
		}
		if cannotPull = m.imageTrouble(ctx, comp); cannotPull != nil {
			return true, ""
		}
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		s := d.Status
		if s.ObservedGeneration == d.Generation && s.UpdatedReplicas == want && s.AvailableReplicas == want && s.Replicas == want {
			return true, ""
		}
		return false, fmt.Sprintf("%d of %d updated, %d available, %d in all; %s", s.UpdatedReplicas, want, s.AvailableReplicas, s.Replicas, m.podTrouble(ctx, comp))
	})
	if cannotPull != nil {
		return cannotPull
	}
	return err
}

// imageReasons are kubelet's waiting reasons for an image it cannot get;
// no amount of waiting fixes them on a node without a registry.
var imageReasons = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true, "InvalidImageName": true}

// imageTrouble names the first of the component's Pods whose image the
// node cannot get.
func (m *Management) imageTrouble(ctx context.Context, comp Component) error {
	pods, err := m.pods(ctx, comp)
	if err != nil {
		return nil // a transient read error is not an image error
	}
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && imageReasons[w.Reason] {
				return fmt.Errorf("%s Pod %s cannot get its image %s: %s: %s", comp.Name, p.Name, cs.Image, w.Reason, w.Message)
			}
		}
	}
	return nil
}

// podTrouble says what the component's Pods wait on.
func (m *Management) podTrouble(ctx context.Context, comp Component) string {
	pods, err := m.pods(ctx, comp)
	if err != nil {
		return err.Error()
	}
	var why []string
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil {
				why = append(why, fmt.Sprintf("%s: %s %s", p.Name, w.Reason, w.Message))
			}
		}
		if len(p.Status.ContainerStatuses) == 0 {
			why = append(why, fmt.Sprintf("%s: %s", p.Name, p.Status.Phase))
		}
	}
	return strings.Join(why, "; ")
}

// pods lists the component's Pods that are not being deleted.
func (m *Management) pods(ctx context.Context, comp Component) ([]corev1.Pod, error) {
	d, err := m.cs.AppsV1().Deployments(comp.Namespace).Get(ctx, comp.Deployment, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	list, err := m.cs.CoreV1().Pods(comp.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: metav1.FormatLabelSelector(d.Spec.Selector),
	})
	if err != nil {
		return nil, err
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

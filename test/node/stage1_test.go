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

package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// SampleExtensionImage is the sample extension's image, as make
// node-images writes it.
const sampleExtensionImage = "sample-extension:node"

// Stage one of the real node: a Pod of the sample extension's image, as a
// non-root container under the runtime's default seccomp profile, becomes
// Ready, and answers Discovery over verified TLS and its admin endpoint
// through its Service's cluster address, which only kube-proxy's rules
// make lead to the Pod.
func TestInside_SampleExtensionPodIsReadyAndAnswersThroughAService(t *testing.T) {
	n := inside(t)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(n.Config())
	const ns, name = "stage-one", "sample-extension"
	host := name + "." + ns + ".svc"
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{host}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, func() error {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-tls"},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM},
		}, metav1.CreateOptions{})
		return err
	})
	labels := map[string]string{"app": name}
	mustCreate(t, func() error {
		_, err := cs.AppsV1().Deployments(ns).Create(ctx, sampleExtensionDeployment(name, labels), metav1.CreateOptions{})
		return err
	})
	var svc *corev1.Service
	mustCreate(t, func() error {
		var err error
		svc, err = cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{
				{Name: "https", Port: 443, TargetPort: intstr.FromString("https")},
				{Name: "admin", Port: 9444, TargetPort: intstr.FromString("admin")},
			}},
		}, metav1.CreateOptions{})
		return err
	})

	began := time.Now()
	polltest.Eventually(t, 3*time.Minute, "the sample extension's Pod to be Ready", func() (bool, string) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil || len(pods.Items) == 0 {
			return false, fmt.Sprintf("no Pod yet (%v)", err)
		}
		return podReady(&pods.Items[0])
	})
	t.Logf("Pod Ready %.1fs after its Deployment was created", time.Since(began).Seconds())

	tlsConfig, err := sampleextension.ClientTLSConfig(caPEM)
	if err != nil {
		t.Fatal(err)
	}
	tlsConfig.ServerName = host
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	var discovery struct {
		Kind     string `json:"kind"`
		Status   string `json:"status"`
		Handlers []struct {
			Name string `json:"name"`
		} `json:"handlers"`
	}
	polltest.Eventually(t, time.Minute, "Discovery through the Service's cluster address", func() (bool, string) {
		body := []byte(`{"apiVersion":"hooks.runtime.cluster.x-k8s.io/v1alpha1","kind":"DiscoveryRequest"}`)
		resp, err := client.Post("https://"+svc.Spec.ClusterIP+sampleextension.DiscoveryPath, "application/json", bytes.NewReader(body))
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Sprintf("%s: %s", resp.Status, data)
		}
		return json.Unmarshal(data, &discovery) == nil, string(data)
	})
	if discovery.Kind != "DiscoveryResponse" || discovery.Status != "Success" || len(discovery.Handlers) == 0 {
		t.Errorf("Discovery answered kind %q status %q with %d handlers, want a successful DiscoveryResponse with handlers", discovery.Kind, discovery.Status, len(discovery.Handlers))
	}

	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(fmt.Sprintf("http://%s:9444/calls", svc.Spec.ClusterIP))
	if err != nil {
		t.Fatalf("admin endpoint through the Service: %v", err)
	}
	defer resp.Body.Close()
	var calls sampleextension.CallCounts
	if err := json.NewDecoder(resp.Body).Decode(&calls); err != nil {
		t.Fatal(err)
	}
	if calls.Total < 1 {
		t.Errorf("the Pod counted %d calls, want the Discovery this test made", calls.Total)
	}
}

// sampleExtensionDeployment runs the sample extension as Cluster API's
// managers run: non-root, no privilege escalation, no capability, the
// runtime's default seccomp profile, a read-only root.
func sampleExtensionDeployment(name string, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            name,
						Image:           sampleExtensionImage,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Args: []string{
							"--address=0.0.0.0:9443", "--admin-address=0.0.0.0:9444",
							"--cert-file=/tls/tls.crt", "--key-file=/tls/tls.key",
						},
						Ports: []corev1.ContainerPort{
							{Name: "https", ContainerPort: 9443},
							{Name: "admin", ContainerPort: 9444},
						},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
							HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("admin")},
						}, PeriodSeconds: 2},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						VolumeMounts: []corev1.VolumeMount{{Name: "tls", MountPath: "/tls", ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{
						Secret: &corev1.SecretVolumeSource{SecretName: name + "-tls"},
					}}},
				},
			},
		},
	}
}

// podReady says whether the Pod is Ready, and if not, what its containers
// wait on (an image error or a crash names itself here, not in a timeout).
func podReady(pod *corev1.Pod) (bool, string) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true, ""
		}
	}
	why := fmt.Sprintf("phase %s", pod.Status.Phase)
	for _, cs := range pod.Status.ContainerStatuses {
		switch {
		case cs.State.Waiting != nil:
			why += fmt.Sprintf("; %s waiting: %s %s", cs.Name, cs.State.Waiting.Reason, cs.State.Waiting.Message)
		case cs.State.Terminated != nil:
			why += fmt.Sprintf("; %s terminated: %s %s", cs.Name, cs.State.Terminated.Reason, cs.State.Terminated.Message)
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			why += fmt.Sprintf("; %s: %s", c.Type, c.Message)
		}
	}
	return false, why
}

func mustCreate(t *testing.T, create func() error) {
	t.Helper()
	if err := create(); err != nil {
		t.Fatal(err)
	}
}

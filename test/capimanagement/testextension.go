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

package capimanagement

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
)

// TestExtension is where Cluster API's test Runtime Extension serves, fixed
// before it first starts, so that ExtensionConfigs can name it while it is
// started and stopped with each control plane it runs against.
type TestExtension struct {
	// URL is its HTTPS address, and CA the CA of its serving certificate.
	URL string
	CA  []byte
	endpoint
}

// NewTestExtension picks the test extension's ports and writes its serving
// certificate under dir.
func NewTestExtension(dir string) (*TestExtension, error) {
	return newTestExtension(dir, 0)
}

// newTestExtension is NewTestExtension serving its hooks on port, or on a
// free port when zero.
func newTestExtension(dir string, port int) (*TestExtension, error) {
	caPEM, certPEM, keyPEM, err := sampleextension.SelfSignedCertificate([]string{"127.0.0.1", "localhost"}, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	e, err := newEndpoint(filepath.Join(dir, "certs", TestExtensionName), certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	if port != 0 {
		e.webhook = port
	}
	return &TestExtension{URL: "https://127.0.0.1:" + strconv.Itoa(e.webhook), CA: caPEM, endpoint: e}, nil
}

// Start runs the test extension against the control plane kubeconfig
// names (it records lifecycle hooks in ConfigMaps there) and waits until
// it serves.
func (x *TestExtension) Start(ctx context.Context, binDir, kubeconfig, logPath string) (*managerprocess.Process, error) {
	return startProvider(ctx, binDir, TestExtensionBinary, kubeconfig, logPath, nil, x.endpoint, defaultStartTimeout)
}

// TestExtensionConfig registers Cluster API's test extension as its e2e
// does: its settings name the config (the extension keys its records by
// it) and leave every lifecycle hook non-blocking unless a response is
// preloaded, and its namespaceSelector admits only namespaces (every
// namespace when none is named).
func (m *Management) TestExtensionConfig(name string, namespaces ...string) *runtimev1.ExtensionConfig {
	selector := &metav1.LabelSelector{}
	if len(namespaces) > 0 {
		selector.MatchExpressions = []metav1.LabelSelectorRequirement{{
			Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: namespaces,
		}}
	}
	return &runtimev1.ExtensionConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: runtimev1.ExtensionConfigSpec{
			ClientConfig:      runtimev1.ClientConfig{URL: m.ExtensionURL, CABundle: m.ExtensionCA},
			NamespaceSelector: selector,
			Settings: map[string]string{
				"extensionConfigName":          name,
				"defaultAllHandlersToBlocking": "false",
			},
		},
	}
}

// HookKey is how the test extension names a hook's records: the hook and
// its attributes (an upgrade's versions) joined by dashes, with '+', which
// a ConfigMap key cannot hold, as '_'.
func HookKey(hook string, attributes ...string) string {
	return strings.ReplaceAll(strings.Join(append([]string{hook}, attributes...), "-"), "+", "_")
}

// hookResponsesName is the ConfigMap in which the test extension records
// each lifecycle hook it answered for a Cluster, and reads answers to give.
func hookResponsesName(cluster, extensionConfig string) string {
	return cluster + "-" + extensionConfig + "-test-extension-hookresponses"
}

// HookResponses returns what the test extension recorded for a Cluster,
// by hook key: the `<key>-actualResponseStatus` entries, such as
// "Status: Success, RetryAfterSeconds: 0". None is an empty map.
func HookResponses(ctx context.Context, c client.Reader, namespace, cluster, extensionConfig string) (map[string]string, error) {
	cm := &corev1.ConfigMap{}
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: hookResponsesName(cluster, extensionConfig)}, cm)
	if apierrors.IsNotFound(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hook responses of %s/%s: %w", namespace, cluster, err)
	}
	recorded := map[string]string{}
	for key, value := range cm.Data {
		if hook, ok := strings.CutSuffix(key, "-actualResponseStatus"); ok {
			recorded[hook] = value
		}
	}
	return recorded, nil
}

// PreloadResponse sets the answer the test extension gives a hook for a
// Cluster (its `<key>-preloadedResponse`), creating the ConfigMap when the
// Cluster has none yet: a response such as
// `{"Status": "Success", "RetryAfterSeconds": 5}` blocks the hook.
func PreloadResponse(ctx context.Context, c client.Client, namespace, cluster, extensionConfig, hookKey, response string) error {
	name := hookResponsesName(cluster, extensionConfig)
	key := hookKey + "-preloadedResponse"
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data:       map[string]string{key: response},
	}
	err := c.Create(ctx, cm)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	patch, err := json.Marshal(map[string]any{"data": map[string]string{key: response}})
	if err != nil {
		return err
	}
	return c.Patch(ctx, cm, client.RawPatch(types.MergePatchType, patch))
}

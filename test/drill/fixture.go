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

package drill

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/benchfixture"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/sampleextension"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// tierLabel splits the drill's namespaces in two; configs with a selector
// admit tier "a" only, so a label flip changes what they admit.
const tierLabel = benchfixture.TierLabel

// extension is one ExtensionConfig and the sample extension behind it.
type extension struct {
	name     string
	server   *sampleextension.Server
	url      string
	ca       []byte
	stop     func()
	selector *metav1.LabelSelector
	// revision is bumped into spec.settings to change the registration.
	revision int
	// byName sends the config's calls to localhost rather than 127.0.0.1:
	// the same server under another URL, which the certificate covers.
	byName bool
	// echo makes DiscoverVariables answers name the registration they
	// were asked through (see echoRequests).
	echo bool
}

// fixture is the objects of one drill: namespaces, ExtensionConfigs each
// served by its own sample extension, and ClusterClasses each calling the
// DiscoverVariables handler of one config.
type fixture struct {
	namespaces []string
	// labels are each namespace's current labels.
	labels     map[string]map[string]string
	extensions []*extension
	// classes[i] references extensions[classConfig[i]].
	classes     []types.NamespacedName
	classConfig []int
	// distinctSettings: see fixtureOptions.
	distinctSettings bool
}

// fixtureOptions size a fixture.
type fixtureOptions struct {
	prefix           string
	clusterClasses   int
	extensionConfigs int
	namespaces       int
	// selectorEvery puts a tier "a" namespaceSelector on every n-th config
	// (0: none).
	selectorEvery int
	// handlerTimeout is the timeoutSeconds the extensions advertise.
	handlerTimeout int32
	// distinctSettings gives every ClusterClass its own patch settings, so
	// no two share a DiscoverVariables call and each reconcile calls out.
	distinctSettings bool
	// echoRequests makes every extension's DiscoverVariables answers name
	// the settings revision and host they were asked with.
	echoRequests bool
}

// variablesV1 is what every extension answers until a drill changes it.
var variablesV1 = []clusterv1.ClusterClassVariable{stringVariable("size")}

// variablesV2 adds a variable, so a drill can tell a new answer from an old one.
var variablesV2 = []clusterv1.ClusterClassVariable{stringVariable("size"), stringVariable("zone")}

var stringVariable = benchfixture.StringVariable

func newFixture(o fixtureOptions) (*fixture, error) {
	f := &fixture{labels: map[string]map[string]string{}, distinctSettings: o.distinctSettings}
	for i := range o.namespaces {
		name := fmt.Sprintf("%s-ns-%d", o.prefix, i)
		f.namespaces = append(f.namespaces, name)
		f.labels[name] = map[string]string{tierLabel: benchfixture.Tier(i)}
	}
	handlers := sampleextension.DefaultHandlers()
	for i := range handlers {
		handlers[i].TimeoutSeconds = ptr.To(o.handlerTimeout)
	}
	for i := range o.extensionConfigs {
		e := &extension{name: fmt.Sprintf("%s-ext-%d", o.prefix, i), echo: o.echoRequests}
		if o.selectorEvery > 0 && i%o.selectorEvery == o.selectorEvery-1 {
			e.selector = benchfixture.TierSelector("a")
		}
		e.server = sampleextension.New(sampleextension.Options{
			Handlers:  append([]runtimehooksv1.ExtensionHandler(nil), handlers...),
			Variables: map[string][]clusterv1.ClusterClassVariable{sampleextension.DiscoverVariablesHandler: variablesV1},
			Seed:      uint64(i + 1),
		})
		if err := e.serve(); err != nil {
			f.stop()
			return nil, err
		}
		f.extensions = append(f.extensions, e)
	}
	for i := range o.clusterClasses {
		f.classes = append(f.classes, types.NamespacedName{Namespace: f.namespaces[i%o.namespaces], Name: "cc-" + strconv.Itoa(i)})
		f.classConfig = append(f.classConfig, i%o.extensionConfigs)
	}
	return f, nil
}

// serve (re)starts the extension's HTTPS server with a fresh certificate
// and CA, as a certificate rotation does.
func (e *extension) serve() error {
	if e.stop != nil {
		e.stop()
	}
	var h http.Handler = e.server
	if e.echo {
		h = echoRequests(h)
	}
	url, ca, stop, err := sampleextension.StartTLS(h)
	if err != nil {
		return fmt.Errorf("start extension %s: %w", e.name, err)
	}
	e.url, e.ca, e.stop = url, ca, stop
	return nil
}

func (f *fixture) stop() {
	for _, e := range f.extensions {
		if e.stop != nil {
			e.stop()
		}
	}
}

func (e *extension) object() *runtimev1.ExtensionConfig {
	ext := &runtimev1.ExtensionConfig{ObjectMeta: metav1.ObjectMeta{Name: e.name}}
	e.fill(ext)
	return ext
}

// fill writes what the drill controls into an ExtensionConfig's spec.
func (e *extension) fill(ext *runtimev1.ExtensionConfig) {
	ext.Spec.ClientConfig = runtimev1.ClientConfig{URL: e.endpoint(), CABundle: e.ca}
	ext.Spec.NamespaceSelector = e.storedSelector()
	ext.Spec.Settings = map[string]string{revisionSetting: strconv.Itoa(e.revision)}
}

// endpoint is the URL the config names: the server's, by name when byName
// is set.
func (e *extension) endpoint() string {
	if !e.byName {
		return e.url
	}
	return strings.Replace(e.url, "//127.0.0.1:", "//localhost:", 1)
}

func (f *fixture) clusterClass(i int, settings map[string]string) *clusterv1.ClusterClass {
	return benchfixture.ClusterClass(f.classes[i].Namespace, f.classes[i].Name, settings, f.extensions[f.classConfig[i]].name)
}

// defaultSettings are the patch settings every ClusterClass starts with:
// all ClusterClasses of one config share one call.
var defaultSettings = map[string]string{"flavour": "default"}

// createConfigs writes the namespaces and ExtensionConfigs.
func (f *fixture) createConfigs(ctx context.Context, c client.Client) error {
	for _, name := range f.namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(f.labels[name])}}
		if err := c.Create(ctx, ns); err != nil {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
	}
	for _, e := range f.extensions {
		if err := c.Create(ctx, e.object()); err != nil {
			return fmt.Errorf("create ExtensionConfig %s: %w", e.name, err)
		}
	}
	return nil
}

// createClasses writes the ClusterClasses with a few workers.
func (f *fixture) createClasses(ctx context.Context, c client.Client) error {
	return benchfixture.CreateClusterClasses(ctx, c, len(f.classes), func(i int) *clusterv1.ClusterClass {
		settings := defaultSettings
		if f.distinctSettings {
			settings = map[string]string{"flavour": "cc-" + strconv.Itoa(i)}
		}
		return f.clusterClass(i, settings)
	})
}

// admitted reports whether ClusterClass i's config admits its namespace
// with the labels the fixture last gave it.
func (f *fixture) admitted(i int) bool {
	ok, _ := registration.Admits(f.extensions[f.classConfig[i]].storedSelector(), f.labels[f.classes[i].Namespace])
	return ok
}

// storedSelector is the namespaceSelector the config is stored with: a
// fixture's nil as {}, which admits every namespace, as Cluster API's
// defaulting webhook writes it (none runs here, and a nil admits none).
func (e *extension) storedSelector() *metav1.LabelSelector {
	if e.selector == nil {
		return &metav1.LabelSelector{}
	}
	return e.selector.DeepCopy()
}

// updateConfig rewrites extension i's ExtensionConfig from the fixture. A
// merge patch carries no resourceVersion, so the controller's status writes
// never make it conflict.
func (f *fixture) updateConfig(ctx context.Context, c client.Client, i int) error {
	e := f.extensions[i]
	ext := &runtimev1.ExtensionConfig{}
	if err := c.Get(ctx, client.ObjectKey{Name: e.name}, ext); err != nil {
		return fmt.Errorf("get ExtensionConfig %s: %w", e.name, err)
	}
	base := ext.DeepCopy()
	e.fill(ext)
	if err := c.Patch(ctx, ext, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("update ExtensionConfig %s: %w", e.name, err)
	}
	return nil
}

// setClassSettings gives ClusterClass i's patch new settings: a new
// DiscoverVariables request, which no cached answer serves.
func (f *fixture) setClassSettings(ctx context.Context, c client.Client, i int, settings map[string]string) error {
	cc := &clusterv1.ClusterClass{}
	if err := c.Get(ctx, f.classes[i], cc); err != nil {
		return fmt.Errorf("get ClusterClass %s: %w", f.classes[i], err)
	}
	base := cc.DeepCopy()
	cc.Spec.Patches[0].External.Settings = settings
	if err := c.Patch(ctx, cc, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("update ClusterClass %s: %w", f.classes[i], err)
	}
	return nil
}

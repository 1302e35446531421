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

package whouses

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/extensionindex"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/pkg/registration"
)

// Reference is one field of a ClusterClass that names the handler.
type Reference struct {
	Patch   string `json:"patch"`
	Field   string `json:"field"`
	Handler string `json:"handler"`
	// State is "discovered", "not discovered" (the config's status does
	// not list it) or "config missing".
	State string `json:"state"`
}

// Use is one referencing ClusterClass.
type Use struct {
	Namespace    string      `json:"namespace"`
	ClusterClass string      `json:"clusterClass"`
	References   []Reference `json:"references"`
	// Admitted says whether the config's namespaceSelector admits the
	// namespace; nil when the config does not exist.
	Admitted *bool `json:"admitted"`
}

// Find lists the ClusterClasses that reference an ExtensionConfig (when
// handler is empty) or one full handler name of it.
func Find(ctx context.Context, reader client.Reader, extensionConfig, handler string) ([]Use, error) {
	if handler != "" {
		config, ok := registration.ExtensionConfigOf(handler)
		if !ok {
			return nil, fmt.Errorf("handler %q is not of the form <handler>.<extensionconfig>", handler)
		}
		extensionConfig = config
	}
	ext := &runtimev1.ExtensionConfig{}
	if err := reader.Get(ctx, client.ObjectKey{Name: extensionConfig}, ext); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("read ExtensionConfig %s: %w", extensionConfig, err)
		}
		ext = nil
	}
	discovered := map[string]bool{}
	if ext != nil {
		recorded, _ := registration.RecordedHandlers(ext)
		for _, h := range recorded {
			discovered[h.FullName] = true
		}
	}

	list := &clusterv1.ClusterClassList{}
	if err := reader.List(ctx, list); err != nil {
		return nil, fmt.Errorf("list ClusterClasses: %w", err)
	}
	namespaceLabels := map[string]map[string]string{}
	var uses []Use
	for i := range list.Items {
		cc := &list.Items[i]
		refs, _ := extensionindex.References(cc)
		var matching []Reference
		for _, ref := range refs {
			if ref.ExtensionConfig != extensionConfig || (handler != "" && ref.Handler != handler) {
				continue
			}
			state := "config missing"
			if ext != nil {
				state = "not discovered"
				if discovered[ref.Handler] {
					state = "discovered"
				}
			}
			matching = append(matching, Reference{Patch: ref.Patch, Field: ref.Field, Handler: ref.Handler, State: state})
		}
		if len(matching) == 0 {
			continue
		}
		use := Use{Namespace: cc.Namespace, ClusterClass: cc.Name, References: matching}
		if ext != nil {
			labels, ok := namespaceLabels[cc.Namespace]
			if !ok {
				ns := &corev1.Namespace{}
				if err := reader.Get(ctx, client.ObjectKey{Name: cc.Namespace}, ns); err != nil {
					return nil, fmt.Errorf("read namespace %s: %w", cc.Namespace, err)
				}
				labels = ns.Labels
				namespaceLabels[cc.Namespace] = labels
			}
			// As Cluster API reads it: a nil selector admits none.
			admitted, err := registration.Admits(ext.Spec.NamespaceSelector, labels)
			if err != nil {
				return nil, fmt.Errorf("ExtensionConfig %s: %w", extensionConfig, err)
			}
			use.Admitted = &admitted
		}
		uses = append(uses, use)
	}
	sort.Slice(uses, func(i, j int) bool {
		if uses[i].Namespace != uses[j].Namespace {
			return uses[i].Namespace < uses[j].Namespace
		}
		return uses[i].ClusterClass < uses[j].ClusterClass
	})
	return uses, nil
}

// WriteTable prints uses one reference per line.
func WriteTable(w io.Writer, uses []Use) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tCLUSTERCLASS\tPATCH\tFIELD\tHANDLER\tADMITTED\tHANDLER STATE")
	for _, u := range uses {
		admitted := "unknown"
		if u.Admitted != nil {
			admitted = map[bool]string{true: "yes", false: "no"}[*u.Admitted]
		}
		for _, r := range u.References {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", u.Namespace, u.ClusterClass, r.Patch, r.Field, r.Handler, admitted, r.State)
		}
	}
	return tw.Flush()
}

// WriteJSON prints uses as a JSON array, for scripts.
func WriteJSON(w io.Writer, uses []Use) error {
	if uses == nil {
		uses = []Use{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(uses)
}

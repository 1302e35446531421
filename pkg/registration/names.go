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

package registration

import (
	"fmt"
	"strings"

	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
)

// FullHandlerName is the name a discovered handler is registered under:
// `<handler>.<config>`. ClusterClasses reference handlers by it, and
// ExtensionConfig status.handlers records it, as Cluster API's runtime
// client does (its NameForHandler).
func FullHandlerName(handler, extensionConfig string) string {
	return handler + "." + extensionConfig
}

// ExtensionConfigOf returns the config part of a full handler name. Handler
// names have no dot, so the config is everything after the first one.
func ExtensionConfigOf(fullName string) (string, bool) {
	handler, config, ok := strings.Cut(fullName, ".")
	if !ok || handler == "" || config == "" {
		return "", false
	}
	return config, true
}

// RecordedHandler is one entry of an ExtensionConfig's status.handlers,
// read back with both its names.
type RecordedHandler struct {
	runtimev1.ExtensionHandler
	// FullName is `<handler>.<config>`, whatever form status recorded.
	FullName string
	// HandlerName is the name the extension discovered: the last segment
	// of the path its calls go to.
	HandlerName string
}

// SkippedHandler is a status.handlers entry that cannot be a handler of the
// ExtensionConfig recording it.
type SkippedHandler struct {
	// Name is the name as recorded.
	Name string
	// Reason says why it was skipped.
	Reason string
}

func (s SkippedHandler) String() string { return fmt.Sprintf("%q: %s", s.Name, s.Reason) }

// RecordedHandlers reads ext's status.handlers. A name is either the full
// `<handler>.<config>` that Cluster API and this controller write, or, as
// earlier versions of this controller wrote, the bare handler name, read as
// `<name>.<config>` so an upgrade keeps every registration. A name of
// another config, or one that is neither form, is skipped and returned
// apart, so it is never registered under a wrong name.
func RecordedHandlers(ext *runtimev1.ExtensionConfig) ([]RecordedHandler, []SkippedHandler) {
	if ext == nil {
		return nil, nil
	}
	handlers := make([]RecordedHandler, 0, len(ext.Status.Handlers))
	var skipped []SkippedHandler
	for _, h := range ext.Status.Handlers {
		short, err := handlerNameIn(h.Name, ext.Name)
		if err != nil {
			skipped = append(skipped, SkippedHandler{Name: h.Name, Reason: err.Error()})
			continue
		}
		handlers = append(handlers, RecordedHandler{
			ExtensionHandler: h,
			FullName:         FullHandlerName(short, ext.Name),
			HandlerName:      short,
		})
	}
	return handlers, skipped
}

// handlerNameIn returns the discovered handler name that recorded, a name
// in extensionConfig's status, stands for.
func handlerNameIn(recorded, extensionConfig string) (string, error) {
	if recorded == "" {
		return "", fmt.Errorf("empty handler name")
	}
	if !strings.Contains(recorded, ".") {
		return recorded, nil // the short form of earlier versions
	}
	if short, ok := strings.CutSuffix(recorded, "."+extensionConfig); ok && short != "" && !strings.Contains(short, ".") {
		return short, nil
	}
	if config, ok := ExtensionConfigOf(recorded); ok && config != extensionConfig {
		return "", fmt.Errorf("names ExtensionConfig %q, not %q", config, extensionConfig)
	}
	return "", fmt.Errorf("is not of the form <handler>.%s", extensionConfig)
}

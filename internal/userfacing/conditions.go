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

package userfacing

// Condition reasons on ExtensionConfigs, beside Cluster API's Discovered
// and NotDiscovered.
const (
	// CAInjectionFailedReason: the CA Secret annotation could not be honoured.
	CAInjectionFailedReason = "CAInjectionFailed"
	// InvalidNamespaceSelectorReason: spec.namespaceSelector does not parse.
	InvalidNamespaceSelectorReason = "InvalidNamespaceSelector"
)

// The condition on ExtensionConfigs that reports
// ResponseCacheMaxAgeAnnotation, set only while the annotation is present
// so that a config without it keeps exactly Cluster API's status.
const (
	// ResponsesCachedCondition is True when answers are cached.
	ResponsesCachedCondition = "ResponsesCached"
	// ResponsesCachedReason: the annotation holds a usable max age.
	ResponsesCachedReason = "MaxAgeSet"
	// InvalidResponseCacheMaxAgeReason: the annotation does not parse, so
	// nothing is cached.
	InvalidResponseCacheMaxAgeReason = "InvalidMaxAge"
	// ResponseCachePausedReason: the config is paused, and a paused config's
	// answers are not cached, as for a controller that never reconciled it.
	ResponseCachePausedReason = "Paused"
)

// ExtensionsResolvedCondition is our condition on ClusterClasses: True when
// every handler its patches reference (generate, validate or discover) is
// registered, serves the right hook, and admits the ClusterClass's
// namespace.
const (
	ExtensionsResolvedCondition = "ExtensionsResolved"
	ExtensionsResolvedReason    = "ExtensionsResolved"
	ExtensionsNotResolvedReason = "ExtensionsNotResolved"
)

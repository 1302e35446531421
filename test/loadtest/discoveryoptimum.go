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

package loadtest

// DiscoveryOptimumNote says in one line what a row's optimum Discovery
// counts: Cluster API's for what users do, which the drop-in keeps.
const DiscoveryOptimumNote = "optimum Discovery is Cluster API's for what users do (the drop-in's): one per ExtensionConfig created or updated " +
	"(spec, labels or annotations) and per status another writer changed; none for the controller's own status writes, " +
	"a Namespace or a ClusterClass; each config once per period"

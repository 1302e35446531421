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

// Package capiversion names the Cluster API release the drop-in is built
// on. The one place that says it is hack/cluster-api-version;
// hack/bump-cluster-api.sh writes the constant here from it, with every
// go.mod, and the tests here hold the constant, the go.mod files and what
// code and docs say equal to that file.
package capiversion

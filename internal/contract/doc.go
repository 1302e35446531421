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

// Package contract holds the facts of Cluster API's provider contract that
// the ClusterClass controller and the core manager need about templates:
// where a template kind's CRD is found (its name derived from group and
// kind, read with ReadCRD) and which API version of it is the newest for
// the contract, read from the CRD's contract labels.
package contract

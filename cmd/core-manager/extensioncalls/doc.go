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

// Package extensioncalls is how Cluster API's own reconcilers (topology,
// Machine, MachineDeployment) call Runtime Extensions in the drop-in: it
// puts our runtime client and handler registry behind Cluster API's
// exp/runtime/client.Client interface, asks the registry's gate before any
// call, and counts calls in Cluster API's request metrics. Every error a caller can see is worded as
// Cluster API v1.14.2's own client words it, so conditions and requeues are
// the same as under Cluster API's manager, and a handler's failurePolicy
// Ignore applies to the same errors as there (rtclient.FailurePolicyApplies).
//
// One difference: when Ignore makes a success of a call, the response is
// the zero response with status Success. Cluster API's client keeps what a
// body that failed to decode had already filled in, such as some of its
// patches; half an answer is never applied here.
//
// The conformance tests beside it call answers written by Cluster API's
// own server library through it.
package extensioncalls

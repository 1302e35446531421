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

import (
	"time"
)

// Row is the account of one event.
type Row struct {
	Event string `json:"event"`
	// Events is the number of API writes the event consisted of.
	Events int `json:"events"`
	// Enqueues, Reconciles and Calls are ours; Calls are DiscoverVariables
	// calls counted by the extensions.
	Enqueues   int   `json:"enqueues"`
	Reconciles int   `json:"reconciles"`
	Calls      int64 `json:"calls"`
	// OptimumReconciles are the ClusterClasses whose observable inputs
	// changed; OptimumCalls the distinct registrations among them whose
	// answer was not known yet.
	OptimumReconciles int `json:"optimumReconciles"`
	OptimumCalls      int `json:"optimumCalls"`
	// ScanEnqueues is what a simulation of Cluster API's scan mapping
	// enqueues for the same events (old and new object of each update);
	// ScanReconciles the distinct ClusterClasses per event, summed. The
	// simulation makes no calls: Cluster API caches DiscoverVariables
	// answers, so what its reconciles call is only known by running it.
	ScanEnqueues   int `json:"scanEnqueues"`
	ScanReconciles int `json:"scanReconciles"`
	// Convergence is the time from the change to every affected
	// ClusterClass's status showing it, when measured.
	Convergence time.Duration `json:"convergenceNanos,omitempty"`
	// Window, for the idle row, is how long it was measured: one period
	// of periodic work and a margin for its jitter.
	Window time.Duration `json:"windowNanos,omitempty"`
	// NotConverged says the event's change was not shown within the step
	// timeout (Cluster API's ClusterClasses may wait for a resync).
	NotConverged bool `json:"notConverged,omitempty"`
	// StaleAfter counts the ClusterClasses whose status, once the
	// controller went quiet after the event, is not what their objects
	// call for now (a controller that missed the event leaves them so
	// until something else reconciles them).
	StaleAfter int `json:"staleAfter"`
	// DiscoveryCalls are Discovery calls counted by the extensions, and
	// OptimumDiscovery those the event needs under Cluster API's for what users do (DiscoveryOptimumNote): one per
	// ExtensionConfig created or updated (spec, labels or annotations) and
	// per status another writer changed.
	DiscoveryCalls   int64 `json:"discoveryCalls"`
	OptimumDiscovery int   `json:"optimumDiscovery"`
	// Requests and StatusWrites are what kube-apiserver's audit log
	// recorded of the controller's requests, all of them and its
	// ClusterClass status writes, when the run has one.
	Requests     *int `json:"requests,omitempty"`
	StatusWrites *int `json:"statusWrites,omitempty"`
	// Note says what the scan misses, when it does.
	Note string `json:"note,omitempty"`
	// RatiosToOurs, on a compared controller's rows, divide its counts by
	// ours for the same event.
	RatiosToOurs *Ratios `json:"ratiosToOurs,omitempty"`
}

// Ratios are one controller's counts over ours; a count ours did not have
// (zero) has no ratio.
type Ratios struct {
	Reconciles   *float64 `json:"reconciles,omitempty"`
	Calls        *float64 `json:"discoverVariablesCalls,omitempty"`
	StatusWrites *float64 `json:"statusWrites,omitempty"`
	Requests     *float64 `json:"requests,omitempty"`
}

// Result is one scenario's run.
type Result struct {
	// Controller names what was measured (NameDropIn, NameCAPI).
	Controller string        `json:"controller,omitempty"`
	Scenario   Scenario      `json:"scenario"`
	Setup      time.Duration `json:"setupNanos"`
	Rows       []Row         `json:"rows"`
}

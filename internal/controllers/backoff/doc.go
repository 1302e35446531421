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

// Package backoff paces the retries of our ExtensionConfig and
// ClusterClass controllers: per-item exponential backoff, as
// controller-runtime's, but capped at userfacing.MaxRetryDelay, so that a
// reconcile that failed for an hour is tried again within a minute.
// Cluster API's own controllers keep controller-runtime's default.
package backoff

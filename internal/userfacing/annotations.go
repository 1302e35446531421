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

// ResponseCacheMaxAgeAnnotation on an ExtensionConfig turns on the drop-in
// core manager's cache of its GeneratePatches and ValidateTopology answers:
// its value is how long an answer is reused, as a Go duration such as
// "10m". Cluster API calls these hooks on every topology reconcile.
const ResponseCacheMaxAgeAnnotation = "runtime-sdk-controller.dev/response-cache-max-age"

// RediscoverAnnotation asks for Discovery at once when its value changes,
// for an extension that changed its handlers. Any update of a label or an
// annotation runs one, as in Cluster API; this one is also part of what a
// Discovery answer is known to depend on, so that a reconcile for any other
// reason after it does not skip the Discovery it asked for.
const RediscoverAnnotation = "runtime-sdk-controller.dev/rediscover"

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

// Package slowextension is a TLS reverse proxy that makes a Runtime
// Extension slow without changing it: it holds each request for a fixed
// latency, chosen by hook, before passing it on over verified TLS, and
// counts the requests and the time the extension was busy with them. The
// scale runs put it in front of Cluster API's test extension, which stays
// unmodified behind it, to see what a real extension (one that renders
// templates or calls other services) costs at scale.
package slowextension

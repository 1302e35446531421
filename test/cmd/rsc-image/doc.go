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

// Command rsc-image writes the project's container images as tarballs
// (`make image`, `make core-manager-image`, `make node-images`, `make
// release`): a static binary, CA certificates and a non-root user on an
// empty base, built in Go, so neither Docker nor a registry is needed.
// With --index it writes a multi-arch image index, one image per --binary,
// each under the platform the binary is built for. Load an image with
// `docker load -i FILE` and push it with `crane push FILE REF`; import an
// index with `ctr images import FILE`, or unpack it into a folder and push
// it with `crane push FOLDER REF`.
package main

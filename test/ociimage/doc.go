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

// Package ociimage builds the project's container images without Docker
// or a registry: one layer on an empty base holding the static binary, the
// CA certificates it verifies extensions with, and an /etc/passwd naming
// the non-root user it runs as. Write writes one image, for the
// architecture its binary is built for, as a tarball that `docker load`
// and `crane push` accept; WriteIndex writes the multi-arch image index
// Cluster API publishes its managers as (amd64, arm64, arm/v7, ppc64le,
// s390x), one such image per platform, as an OCI layout archive that
// `ctr images import` accepts (and `crane push`, once unpacked).
//
// It is for the image tool; no shipped binary links it.
package ociimage

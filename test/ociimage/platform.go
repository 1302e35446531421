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

package ociimage

import (
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Platforms are the platforms Cluster API publishes its managers for, as
// OCI names them: the ones an image index here may hold.
var Platforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
	{OS: "linux", Architecture: "arm", Variant: "v7"},
	{OS: "linux", Architecture: "ppc64le"},
	{OS: "linux", Architecture: "s390x"},
}

// BinaryPlatform reads a binary's platform from the binary itself, so that
// no caller can put a binary under another architecture's name: the
// architecture from its ELF header, and for arm the variant from the
// GOARM its Go build information records (the ELF header does not say
// which ARM it needs). It refuses a dynamically linked binary (the image
// has no libc) and a platform not among Platforms.
func BinaryPlatform(binary string) (v1.Platform, error) {
	f, err := elf.Open(binary)
	if err != nil {
		return v1.Platform{}, fmt.Errorf("binary %s is not an ELF executable: %w", binary, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return v1.Platform{}, errors.New("binary " + binary + " is dynamically linked; build it with CGO_ENABLED=0")
		}
	}
	p := v1.Platform{OS: "linux"}
	switch {
	case f.Machine == elf.EM_X86_64:
		p.Architecture = "amd64"
	case f.Machine == elf.EM_AARCH64:
		p.Architecture = "arm64"
	case f.Machine == elf.EM_PPC64 && f.Data == elf.ELFDATA2LSB:
		p.Architecture = "ppc64le"
	case f.Machine == elf.EM_S390:
		p.Architecture = "s390x"
	case f.Machine == elf.EM_ARM:
		p.Architecture = "arm"
		if p.Variant, err = armVariant(binary); err != nil {
			return v1.Platform{}, err
		}
	default:
		return v1.Platform{}, fmt.Errorf("binary %s: architecture %s (%s) is not one the image is built for (%s)", binary, f.Machine, f.Data, platformList())
	}
	if !supported(p) {
		return v1.Platform{}, fmt.Errorf("binary %s is for %s, not one the image is built for (%s)", binary, p.String(), platformList())
	}
	return p, nil
}

// armVariant is v5, v6 or v7 as the binary's GOARM says ("7" or
// "7,softfloat").
func armVariant(binary string) (string, error) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return "", fmt.Errorf("binary %s is for arm, and without Go build information its ARM version is unknown: %w", binary, err)
	}
	for _, s := range info.Settings {
		if s.Key == "GOARM" {
			version, _, _ := strings.Cut(s.Value, ",")
			return "v" + version, nil
		}
	}
	return "", fmt.Errorf("binary %s is for arm, and its Go build information records no GOARM", binary)
}

func supported(p v1.Platform) bool {
	for _, s := range Platforms {
		if s.OS == p.OS && s.Architecture == p.Architecture && s.Variant == p.Variant {
			return true
		}
	}
	return false
}

func platformList() string {
	names := make([]string, len(Platforms))
	for i, p := range Platforms {
		names[i] = p.String()
	}
	return strings.Join(names, ", ")
}

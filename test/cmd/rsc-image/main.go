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

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// defaultBinary is what make image builds.
const defaultBinary = "bin/linux/runtime-sdk-controller"

func run(args []string, stdout, stderr io.Writer) int {
	var o ociimage.Options
	var binaries []string
	out, index := "", false
	fs := flag.NewFlagSet("rsc-image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Func("binary", "The binary, built with CGO_ENABLED=0 (default "+defaultBinary+"); with --index, once per platform.", func(s string) error {
		binaries = append(binaries, s)
		return nil
	})
	fs.BoolVar(&index, "index", false, "Write a multi-arch OCI image index of every --binary, each under the platform it is built for (amd64, arm64, arm/v7, ppc64le, s390x), instead of one image.")
	fs.StringVar(&o.CACertificates, "ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of the roots the image trusts.")
	fs.StringVar(&o.Tag, "tag", ociimage.DefaultTag, "Name of the image in the archive; config/manager deploys "+ociimage.DefaultTag+".")
	fs.StringVar(&o.PathInImage, "path-in-image", ociimage.BinaryPath, "Where the binary goes in the image, and the entrypoint (the drop-in core manager: /manager, as Cluster API's Deployment runs it).")
	fs.StringVar(&o.Title, "title", "runtime-sdk-controller", "The image's title label.")
	fs.StringVar(&o.Version, "version", "", "The release's version, the org.opencontainers.image.version label (and the index's annotation); empty leaves it out.")
	fs.StringVar(&o.Revision, "revision", "", "The source revision, the org.opencontainers.image.revision label; empty leaves it out.")
	fs.StringVar(&o.Source, "source", ociimage.DefaultSource, "The source repository, the org.opencontainers.image.source label.")
	fs.StringVar(&out, "out", "bin/runtime-sdk-controller-image.tar", "Where to write the tarball.")
	return cli.Run(fs, args, stderr, func() error {
		if err := write(out, index, binaries, o); err != nil {
			return err
		}
		info, err := os.Stat(out)
		if err != nil {
			return err
		}
		if index {
			_, err = fmt.Fprintf(stdout, "wrote %s (%s, an image index of %d platforms, %.1f MB): ctr images import %s, or unpack it into a folder and crane push FOLDER REGISTRY/%s:TAG\n",
				out, o.Tag, len(binaries), float64(info.Size())/1e6, out, o.Title)
			return err
		}
		_, err = fmt.Fprintf(stdout, "wrote %s (%s, %.1f MB): docker load -i %s, or crane push %s REGISTRY/%s:TAG\n",
			out, o.Tag, float64(info.Size())/1e6, out, out, o.Title)
		return err
	})
}

func write(out string, index bool, binaries []string, o ociimage.Options) error {
	if index {
		return ociimage.WriteIndex(out, binaries, o)
	}
	switch len(binaries) {
	case 0:
		o.Binary = defaultBinary
	case 1:
		o.Binary = binaries[0]
	default:
		return errors.New("more than one --binary makes an image index: add --index")
	}
	return ociimage.Write(out, o)
}

package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/cli"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/ociimage"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	var o ociimage.Options
	out := ""
	fs := flag.NewFlagSet("rsc-image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Binary, "binary", "bin/linux/runtime-sdk-controller", "The controller, built with CGO_ENABLED=0.")
	fs.StringVar(&o.CACertificates, "ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of the roots the image trusts.")
	fs.StringVar(&o.Tag, "tag", ociimage.DefaultTag, "Name of the image in the archive; config/manager deploys "+ociimage.DefaultTag+".")
	fs.StringVar(&o.PathInImage, "path-in-image", ociimage.BinaryPath, "Where the binary goes in the image, and the entrypoint (the drop-in core manager: /manager, as Cluster API's Deployment runs it).")
	fs.StringVar(&o.Title, "title", "runtime-sdk-controller", "The image's title label.")
	fs.StringVar(&out, "out", "bin/runtime-sdk-controller-image.tar", "Where to write the tarball.")
	return cli.Run(fs, args, stderr, func() error {
		if err := ociimage.Write(out, o); err != nil {
			return err
		}
		info, err := os.Stat(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "wrote %s (%s, %.1f MB): docker load -i %s, or crane push %s REGISTRY/%s:TAG\n",
			out, o.Tag, float64(info.Size())/1e6, out, out, o.Title)
		return err
	})
}

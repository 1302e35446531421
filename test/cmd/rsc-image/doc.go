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

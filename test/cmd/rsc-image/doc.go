// Command rsc-image writes the controller's container image as a tarball
// (`make image`): a static binary, CA certificates and a non-root user on an
// empty base, built in Go, so neither Docker nor a registry is needed. Load
// it with `docker load -i FILE`, or push it with `crane push FILE REF`.
package main

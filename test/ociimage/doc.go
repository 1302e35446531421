// Package ociimage builds the controller's container image without Docker
// or a registry: one layer on an empty base holding the static binary, the
// CA certificates it verifies extensions with, and an /etc/passwd naming
// the non-root user it runs as. The result is a tarball that `docker load`
// and `crane push` accept.
//
// It is for the image tool; the controller binary never links it.
package ociimage

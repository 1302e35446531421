// Package ociimagetest builds what tests of images need in place of the
// shipped binaries: a small static Go program per platform an image index
// holds, so that a test can check which binary went under which platform
// without cross-building the core manager five times.
package ociimagetest

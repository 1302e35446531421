// Package release holds make release to its contract without the five
// cross-builds of the core manager: its tests run the release script
// (hack/release.sh) on small stand-in binaries, one per platform, with
// the real image writer and the real cyclonedx-gomod, and check every file
// it writes. The full make release is not part of make test.
package release

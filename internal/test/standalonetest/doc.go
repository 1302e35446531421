// Package standalonetest starts the manager package standalone builds, as
// the binary runs it, for the length of one test. Only tests import it.
package standalonetest

// Package sampleextensiontest starts a sample Runtime Extension for a test,
// served over real HTTPS until the test ends. Only tests import it, so the
// sample extension itself stays free of the testing package.
package sampleextensiontest

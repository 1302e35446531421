// Package polltest helps tests wait for code running in other goroutines
// and processes without sleeping blindly: Eventually polls a check until a
// deadline and fails with the check's last explanation, Within does the
// same for goroutines that return an error instead, Consistently holds a
// check true for a while, and Buffer collects output that a test reads
// while it is being written.
package polltest

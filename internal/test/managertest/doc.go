// Package managertest runs a controller-runtime manager for the length of
// one test: our two controllers wired as the drop-in wires them
// (StartControllers), or any manager a test built (Run). Only tests
// import it.
package managertest

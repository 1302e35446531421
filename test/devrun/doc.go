// Package devrun is the development launcher behind `make run`: it starts a
// local control plane, then the controller and a sample Runtime Extension as
// child processes, applies the examples where they are absent, and prints a
// short summary of what the controller has done whenever it changes.
//
// It is a tool for people trying the controller on their machine; the
// controller binary never links it.
package devrun

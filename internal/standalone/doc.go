// Package standalone assembles the manager the runtime-sdk-controller
// binary runs, and only that binary links it: scheme, cache transforms,
// metrics and probe endpoints, leader election, and either the controllers
// (controllers.AddToManager) or observe mode. Tests build the same manager
// through it, so what they exercise is what operators run.
package standalone

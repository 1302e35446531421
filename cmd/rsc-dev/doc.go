// Command rsc-dev is the development launcher `make run` starts: a local
// control plane (etcd and kube-apiserver from bin/), then the controller and
// the sample Runtime Extension as child processes, with the extension's CA
// written into a Secret the examples' ExtensionConfigs inject from. It
// applies examples/ where its objects are absent, prints the commands to try
// next, and then a one-line summary (ClusterClasses with variables ready,
// handlers registered, reconciles, extension calls) whenever it changes.
//
// The controller's JSON log goes to .local/controller.log; the terminal shows
// its warnings and errors in console format. --bare starts the control plane
// and the controller only; --kubeconfig runs the controller alone against
// that cluster, never an extension or the examples. Flags after -- go to the
// controller. Ctrl-C stops the controller, the extension and the control
// plane, in that order.
//
// It is a tool for trying the controller; the controller binary never links
// it.
package main

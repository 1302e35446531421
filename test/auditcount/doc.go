// Package auditcount counts, per user, the requests kube-apiserver's audit
// log records: how a load tool learns what each actor (a controller, its
// driver) sent, from the server's side, without trusting anyone's own
// bookkeeping.
package auditcount

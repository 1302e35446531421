// Package apiversion answers Cluster API's conversion webhooks when they
// ask which API version of a provider's kind is current: the newest version
// the kind's CRD lists for the newest contract it implements. Cluster API's
// own answer lives in an internal package another module cannot import.
package apiversion

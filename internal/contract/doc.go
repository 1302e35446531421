// Package contract holds the facts of Cluster API's provider contract that
// the ClusterClass controller and the core manager need about templates:
// where a template kind's CRD is found (its name derived from group and
// kind, read with ReadCRD) and which API version of it is the newest for
// the contract, read from the CRD's contract labels.
package contract

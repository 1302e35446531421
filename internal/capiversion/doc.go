// Package capiversion names the Cluster API release the drop-in is built
// on. The one place that says it is hack/cluster-api-version;
// hack/bump-cluster-api.sh writes the constant here from it, with every
// go.mod, and the tests here hold the constant, the go.mod files and what
// code and docs say equal to that file.
package capiversion

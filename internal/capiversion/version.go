package capiversion

// Version is the Cluster API release the drop-in is built on, as
// hack/cluster-api-version says it (written by hack/bump-cluster-api.sh).
const Version = "v1.14.2"

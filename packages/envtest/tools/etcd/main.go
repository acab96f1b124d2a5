// Command etcd is the etcd server, built from the go.etcd.io/etcd/server/v3 module so that
// @noderepair/envtest needs nothing but the Go toolchain and the module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}

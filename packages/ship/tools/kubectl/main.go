// kubectl for @noderepair/image-test, built from the k8s.io/kubectl library at the release of
// the envtest control plane (kubectl supports one minor version of skew; the same release
// also reuses the envtest build's compiled k8s.io packages from the Go build cache).
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}

// CoreDNS with only the plugins the node's cluster DNS uses. No `forward`: names outside
// cluster.local get SERVFAIL, so no pod lookup ever leaves the machine.
// Built by ci/local/tools.sh node (pinned coredns module version there).
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() { coremain.Run() }

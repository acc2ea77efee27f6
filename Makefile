# The documented entry points. The two that matter on a fresh machine:
#   make demo   - everything on this machine: real stores + the five services + the gateway + Prometheus
#                 with the chart's recording rules + a k6 run + a per-minute report
#   make test   - every test suite (what .ci/run and CI call)
SHELL := /bin/bash
.DEFAULT_GOAL := help
export NEWSFEED_RUN ?= $(CURDIR)/.run

.PHONY: help tools build demo test load report stack-up stack-down services-up services-down \
        prometheus-up prometheus-down jaeger-up jaeger-down gateway-up gateway-down experiment control-plane-up control-plane-down clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-20s %s\n", $$1, $$2}'

tools: ## install the pinned tools into ~/.cache/newsfeed (seconds when warm)
	bash ci/local/tools.sh all

build: ## build the five service jars
	mvn -q -f services/pom.xml package -DskipTests

demo: ## run stores + services + Prometheus + a k6 social run + per-minute report (DEMO_DURATION=3m; TRACING=1: + Jaeger)
	bash ci/local/demo.sh

test: ## run every test suite (SUITES="lint charts" for a subset)
	bash ci/tests/run.sh $(SUITES)

load: ## run a k6 scenario against the running local services (SCENARIO=social|smoke|fanout|experiment|graphql)
	bash ci/bench/load.sh $(or $(SCENARIO),social)

# a small capacity search (20 s steps, bisected to 10 %); FIXED_RATE=50: the fixed-rate run at 50 it/s instead
EXPERIMENT_LOAD = $(if $(FIXED_RATE),--rate $(FIXED_RATE),--capacity --step 20s --resolution 0.1$(if $(SLO_MS), --slo-ms $(SLO_MS)))
experiment: ## capacity: the most k6 it/s each instance count sustains at p95 <= SLO_MS (50; inbound 20) (SERVICE=outbound REPLICAS="1 2"; FIXED_RATE=50: one fixed rate)
	bash ci/bench/experiment.sh --mode local --service $(or $(SERVICE),outbound) --replicas "$(or $(REPLICAS),1 2)" $(EXPERIMENT_LOAD)

report: ## per-minute report from the local Prometheus (START/END as unix seconds or RFC3339)
	bash ci/local/prometheus.sh report

stack-up: ## start the local stores (PostgreSQL, Redis, Kafka, Cassandra, Solr)
	bash ci/local/stack.sh up

stack-down: ## stop the local stores
	bash ci/local/stack.sh down

services-up: build ## start the five services against the local stack
	bash ci/local/services.sh start

dead-letters: ## what inbound's or search's consumer moved to its dead-letter topic (SERVICE=search; ACTION=replay puts it back)
	@bash ci/local/services.sh dead-letters "$(or $(SERVICE),search)" "$(or $(ACTION),list)"

services-down: ## stop the five services
	bash ci/local/services.sh stop

prometheus-up: ## start the local Prometheus with the chart's recording rules
	bash ci/local/prometheus.sh start

prometheus-down: ## stop the local Prometheus
	bash ci/local/prometheus.sh stop

jaeger-up: ## start the local Jaeger for traces (built on first use, minutes; docs/observability.md#traces)
	bash ci/local/jaeger.sh start

jaeger-down: ## stop the local Jaeger
	bash ci/local/jaeger.sh stop

gateway-up: ## start the local nginx gateway (the classic single API on 127.0.0.1:18080)
	bash ci/local/gateway.sh start

gateway-down: ## stop the local gateway
	bash ci/local/gateway.sh stop

control-plane-up: ## start a local etcd + kube-apiserver + controller-manager (no kubelet)
	bash ci/local/control-plane.sh start

control-plane-down: ## stop the local control plane
	bash ci/local/control-plane.sh stop

.PHONY: cluster-up cluster-down cluster-demo
cluster-demo: ## the whole system in a real Kubernetes on this machine + a k6 Job + the per-minute report (as root)
	bash ci/local/cluster/demo.sh

cluster-up: ## start a real single-node Kubernetes on this machine (as root; ci/local/cluster/README.md)
	bash ci/local/tools.sh apt kube node >/dev/null && bash ci/local/cluster.sh up

cluster-down: ## stop the local Kubernetes node and remove its network
	bash ci/local/cluster.sh down

clean: ## stop everything the run directory started, then remove it (refuses while anything of it is left)
	bash ci/local/clean.sh

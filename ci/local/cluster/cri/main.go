// cri: the few crictl verbs ci/local/cluster.sh needs (crictl is not published as a Go module).
// Usage: cri SOCKET pods|ps|images|rmp-all
//   rmp-all stops every pod sandbox (the CNI DEL frees its veth, netns and IP lease) and removes it.
// Built by ci/local/tools.sh node against k8s.io/cri-api of the pinned Kubernetes version.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	rt "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "cri:", err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cri SOCKET pods|ps|images|rmp-all")
		os.Exit(2)
	}
	conn, err := grpc.NewClient("unix://"+os.Args[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
	check(err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := rt.NewRuntimeServiceClient(conn)
	switch os.Args[2] {
	case "pods":
		resp, err := r.ListPodSandbox(ctx, &rt.ListPodSandboxRequest{})
		check(err)
		for _, p := range resp.Items {
			fmt.Printf("%.13s  %-18s %s/%s\n", p.Id, p.State, p.Metadata.Namespace, p.Metadata.Name)
		}
	case "ps":
		resp, err := r.ListContainers(ctx, &rt.ListContainersRequest{})
		check(err)
		for _, c := range resp.Containers {
			fmt.Printf("%.13s  %-18s %-20s %s/%s\n", c.Id, c.State, c.Metadata.Name,
				c.Labels["io.kubernetes.pod.namespace"], c.Labels["io.kubernetes.pod.name"])
		}
	case "images":
		resp, err := rt.NewImageServiceClient(conn).ListImages(ctx, &rt.ListImagesRequest{})
		check(err)
		for _, i := range resp.Images {
			fmt.Printf("%.19s  %10d  %v\n", i.Id, i.Size, i.RepoTags)
		}
	case "rmp-all":
		resp, err := r.ListPodSandbox(ctx, &rt.ListPodSandboxRequest{})
		check(err)
		failed := false
		for _, p := range resp.Items {
			if _, err := r.StopPodSandbox(ctx, &rt.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
				fmt.Fprintln(os.Stderr, "stop", p.Id, err)
				failed = true
			}
			if _, err := r.RemovePodSandbox(ctx, &rt.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
				fmt.Fprintln(os.Stderr, "remove", p.Id, err)
				failed = true
			}
		}
		if failed {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown verb", os.Args[2])
		os.Exit(2)
	}
}

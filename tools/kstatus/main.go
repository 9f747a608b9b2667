// kstatus computes the kstatus verdict (sigs.k8s.io/cli-utils/pkg/kstatus/status, the library Flux's
// health checks and kpt use) of each Kubernetes object it reads, so tests can assert what GitOps tools
// will say about a GlooHA. Input: a JSON array of objects on stdin; output: a JSON array of
// {"status", "message"} in the same order. An element that is null stands for a deleted object
// (kstatus reports NotFound for it, as its pollers do).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

func main() {
	var raw []json.RawMessage
	if err := json.NewDecoder(os.Stdin).Decode(&raw); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: stdin must be a JSON array of objects: %v\n", err)
		os.Exit(2)
	}
	out := make([]verdict, 0, len(raw))
	for i, item := range raw {
		// apimachinery's decoder, as a client's: integers become int64, which kstatus requires.
		var obj map[string]interface{}
		if err := utiljson.Unmarshal(item, &obj); err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: object %d: %v\n", i, err)
			os.Exit(2)
		}
		if obj == nil {
			out = append(out, verdict{Status: status.NotFoundStatus.String(), Message: "resource not found"})
			continue
		}
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			fmt.Fprintf(os.Stderr, "kstatus: object %d: %v\n", i, err)
			os.Exit(1)
		}
		out = append(out, verdict{Status: res.Status.String(), Message: res.Message})
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
		os.Exit(1)
	}
}

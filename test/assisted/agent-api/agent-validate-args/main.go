// The real agent's validation of step args, for test/assisted/agent-api/agent-args.test.ts.
// Build it inside a checkout of openshift/assisted-installer-agent (its vendor/ has every
// dependency): copy this directory to src/validate_args and run
// `go build -mod=vendor -o validate-args ./src/validate_args`.
package main

// Reads JSON lines {"type": <step type>, "args": [...]} and runs the agent's own action
// constructor (which validates the args as the agent does before running a step).
import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/openshift/assisted-installer-agent/src/commands/actions"
	"github.com/openshift/assisted-installer-agent/src/config"
	"github.com/openshift/assisted-service/models"
)

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 0, 1<<20), 1<<24)
	cfg := &config.AgentConfig{}
	failed := 0
	for scanner.Scan() {
		var in struct {
			Type string   `json:"type"`
			Args []string `json:"args"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			fmt.Println("BAD INPUT", err)
			os.Exit(2)
		}
		if in.Type == "next-step-runner" {
			a := actions.NewNextStepRunnerAction(cfg, in.Args)
			if err := a.Validate(); err != nil {
				fmt.Printf("FAIL %s: %v\n", in.Type, err)
				failed++
			} else {
				fmt.Printf("OK %s\n", in.Type)
			}
			continue
		}
		if _, err := actions.New(cfg, models.StepType(in.Type), in.Args); err != nil {
			fmt.Printf("FAIL %s: %v\n", in.Type, err)
			failed++
		} else {
			fmt.Printf("OK %s\n", in.Type)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

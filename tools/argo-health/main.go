// argo-health evaluates an Argo CD custom health check (resource.customizations.health.<group_Kind>)
// with gopher-lua, the interpreter Argo CD embeds, in the sandbox Argo CD gives user scripts: the
// standard libraries skipped, then only package, base and table opened (Argo CD adds a reduced os
// library that our script does not use, so calling os fails here as a mistake would), the object as
// the global `obj`, a one-second deadline, and a table with a known status code expected back.
//
// Usage: argo-health SCRIPT.lua < objects.json, where objects.json is a JSON array of objects.
// Output: a JSON array of {"status", "message"}, one per object, in order.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
)

type health struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// The codes Argo CD accepts from a health script (gitops-engine's HealthStatusCode).
var validStatus = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true, "Suspended": true, "Missing": true, "Unknown": true,
}

func toLua(l *lua.LState, v interface{}) lua.LValue {
	switch x := v.(type) {
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case []interface{}:
		t := l.CreateTable(len(x), 0)
		for _, item := range x {
			t.Append(toLua(l, item))
		}
		return t
	case map[string]interface{}:
		t := l.CreateTable(0, len(x))
		for k, item := range x {
			t.RawSetH(lua.LString(k), toLua(l, item))
		}
		return t
	}
	return lua.LNil
}

func evaluate(script string, obj map[string]interface{}) (health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return health{}, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return health{}, err
	}
	ret, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return health{}, fmt.Errorf("the script returned %s, not a table", l.Get(-1).Type())
	}
	h := health{Status: lua.LVAsString(ret.RawGetString("status")), Message: lua.LVAsString(ret.RawGetString("message"))}
	if !validStatus[h.Status] {
		return health{}, fmt.Errorf("the script returned the unknown health status %q", h.Status)
	}
	return h, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: argo-health SCRIPT.lua < objects.json")
		os.Exit(2)
	}
	script, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "argo-health: %v\n", err)
		os.Exit(2)
	}
	var objs []map[string]interface{}
	if err := json.NewDecoder(os.Stdin).Decode(&objs); err != nil {
		fmt.Fprintf(os.Stderr, "argo-health: stdin must be a JSON array of objects: %v\n", err)
		os.Exit(2)
	}
	out := make([]health, 0, len(objs))
	for i, obj := range objs {
		h, err := evaluate(string(script), obj)
		if err != nil {
			fmt.Fprintf(os.Stderr, "argo-health: object %d: %v\n", i, err)
			os.Exit(1)
		}
		out = append(out, h)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "argo-health: %v\n", err)
		os.Exit(1)
	}
}

package trust

import (
	"errors"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
)

func TestParseHosts(t *testing.T) {
	t.Parallel()
	tr, err := ParseHosts(" Models.Internal , proxy.example.com:8443,,[fd00::1], gpu. ")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tr.Hosts, " "); got != "models.internal proxy.example.com:8443 [fd00::1] gpu" {
		t.Errorf("Hosts = %q", got)
	}
	for _, bad := range []string{"https://models.internal", "models.internal/v1", "user@host", "a b"} {
		_, err := ParseHosts("ok.example," + bad)
		want := `VECTORLINT_TRUSTED_HOSTS: expected comma-separated host names such as models.internal or proxy.example.com:8443, found "` + bad + `"`
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if tr, err := ParseHosts(""); err != nil || len(tr.Hosts) != 0 {
		t.Errorf("empty: %v, %v", tr, err)
	}
}

// TestCheck is the rule of trust.md §1, origin by origin.
func TestCheck(t *testing.T) {
	t.Parallel()
	process := envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_API_KEY"}
	user := envsource.Source{Origin: envsource.OriginUserConfig, Name: "OPENAI_API_KEY", File: "/home/u/.vectorlint/config.toml"}
	dotKey := envsource.Source{Origin: envsource.OriginDotEnv, Name: "OPENAI_API_KEY", File: ".env", Line: 2}
	iniURL := envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL", File: "vectorlint.ini", Line: 3}
	dotURL := envsource.Source{Origin: envsource.OriginDotEnv, Name: "OPENAI_BASE_URL", File: ".env", Line: 1}
	localURL := envsource.Source{Origin: envsource.OriginDotEnvLocal, Name: "OPENAI_BASE_URL", File: ".env.local", Line: 4}
	bpURL := envsource.Source{Origin: envsource.OriginBlueprint, Name: `url of custom model "x"`, File: "bp.yml", Line: 5}
	rule, _ := ParseHosts("models.internal,proxy.example.com:8443")
	tests := []struct {
		name     string
		key, url envsource.Source
		baseURL  string
		refused  bool
	}{
		{"built-in endpoint", process, envsource.Source{Origin: envsource.OriginDefault}, "https://api.openai.com/v1", false},
		{"flag", process, envsource.Source{Origin: envsource.OriginFlag, Name: "--base-url"}, "https://anywhere.example/v1", false},
		{"process base URL", process, envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_BASE_URL"}, "https://anywhere.example/v1", false},
		{"user config base URL", user, user, "https://anywhere.example/v1", false},
		{"ini to elsewhere", process, iniURL, "https://attacker.test/v1", true},
		{"ini to loopback", process, iniURL, "http://127.0.0.1:11434/v1", false},
		{"ini to localhost", process, iniURL, "http://localhost:11434/v1", false},
		{"ini to a trusted host", process, iniURL, "https://MODELS.internal/v1", false},
		{"ini to a trusted host on another port", process, iniURL, "https://proxy.example.com:9999/v1", true},
		{"ini to a trusted host and port", process, iniURL, "https://proxy.example.com:8443/v1", false},
		{".env to elsewhere", process, dotURL, "https://attacker.test/v1", true},
		{".env.local to elsewhere, user config key", user, localURL, "https://attacker.test/v1", true},
		{"blueprint url", process, bpURL, "https://attacker.test/x", true},
		{".env key with .env url", dotKey, dotURL, "https://attacker.test/v1", false},
		{".env key with ini url", dotKey, iniURL, "https://attacker.test/v1", false},
		{"no key", envsource.Source{}, dotURL, "https://attacker.test/v1", false},
		{"invalid url", process, dotURL, "::", true},
	}
	for _, tt := range tests {
		err := rule.Check(tt.baseURL, tt.key, tt.url)
		var ue *UntrustedHostError
		if refused := errors.As(err, &ue); refused != tt.refused || (err != nil && !refused) {
			t.Errorf("%s: %v, want refused %v", tt.name, err, tt.refused)
		}
	}
	var none *Rule
	if err := none.Check("https://attacker.test", process, dotURL); err != nil {
		t.Errorf("a nil Rule refuses: %v", err)
	}

	err := rule.Check("https://user:pw@attacker.test:8443/v1?key=k", process, iniURL)
	want := "vectorlint.ini:3: BaseURL would send OPENAI_API_KEY (from the process environment) to attacker.test, which is not the provider's endpoint, " +
		"a loopback address or a host in VECTORLINT_TRUSTED_HOSTS: refused before any call (a file in the repository may not redirect your key). " +
		"If you trust attacker.test, add it to VECTORLINT_TRUSTED_HOSTS in the process environment (a .env file cannot set it)"
	if err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
}

func FuzzParseHosts(f *testing.F) {
	for _, s := range []string{"a.example", "a, b:8443", "[::1]:80,x", "https://x", ",,", "a/b", "A.EXAMPLE.", ":", "[::1"} {
		f.Add(s, "http://a.example:8443/v1")
	}
	f.Fuzz(func(t *testing.T, list, baseURL string) {
		tr, err := ParseHosts(list)
		if err != nil {
			var se *envsource.SettingError
			if !errors.As(err, &se) || se.Source != HostsVar {
				t.Fatalf("error %v is not a *SettingError naming the variable", err)
			}
			return
		}
		err = tr.Check(baseURL, envsource.Source{Origin: envsource.OriginProcess, Name: "K"},
			envsource.Source{Origin: envsource.OriginDotEnv, Name: "U", File: ".env", Line: 1})
		if err == nil {
			return
		}
		var ue *UntrustedHostError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), HostsVar) || !strings.HasPrefix(err.Error(), ".env:1: ") {
			t.Fatalf("refusal %v lacks the file, line or variable", err)
		}
	})
}

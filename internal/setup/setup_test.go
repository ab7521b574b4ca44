package setup

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vectorlint/vectorlint/lint/config"
)

func TestUserCacheDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"}, filepath.Join("/xdg", "vectorlint")},
		{"linux", map[string]string{"XDG_CACHE_HOME": "relative", "HOME": "/home/u"}, filepath.Join("/home/u", ".cache", "vectorlint")},
		{"linux", map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".cache", "vectorlint")},
		{"linux", nil, ""},
		{"darwin", map[string]string{"HOME": "/Users/u", "XDG_CACHE_HOME": "/xdg"}, filepath.Join("/Users/u", "Library", "Caches", "vectorlint")},
		{"windows", map[string]string{"LocalAppData": `C:\Users\u\AppData\Local`}, filepath.Join(`C:\Users\u\AppData\Local`, "vectorlint")},
		{"windows", map[string]string{"HOME": "/home/u"}, ""},
	}
	for _, tt := range tests {
		got := UserCacheDir(func(k string) string { return tt.env[k] }, tt.goos)
		if got != tt.want {
			t.Errorf("%s %v: %q, want %q", tt.goos, tt.env, got, tt.want)
		}
	}
}

func TestConfidenceThreshold(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{ConfidenceThreshold: 0.9, ConfidenceThresholdSet: true}
	tests := []struct {
		env  map[string]string
		cfg  *config.Config
		want string
	}{
		{nil, &config.Config{ConfidenceThreshold: config.DefaultConfidenceThreshold}, "0.75"},
		{nil, cfg, "0.9"},
		{map[string]string{"CONFIDENCE_THRESHOLD": "0.3"}, cfg, "0.3"},
		{map[string]string{"CONFIDENCE_THRESHOLD": " 0 "}, cfg, "0"},
		{map[string]string{"CONFIDENCE_THRESHOLD": ""}, cfg, "0.9"},
		{map[string]string{"CONFIDENCE_THRESHOLD": "high"}, cfg, `error: CONFIDENCE_THRESHOLD: expected a number from 0 to 1, found "high"`},
		{map[string]string{"CONFIDENCE_THRESHOLD": "75"}, cfg, `error: CONFIDENCE_THRESHOLD: expected a number from 0 to 1, found "75"`},
	}
	for _, tt := range tests {
		v, err := ConfidenceThreshold(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }, tt.cfg)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = strconv.FormatFloat(v, 'f', -1, 64)
		}
		if got != tt.want {
			t.Errorf("%v: %s, want %s", tt.env, got, tt.want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
)

// runEvaluateApp runs the command in-process in dir with the given standard input and returns what it
// printed and its exit code.
func runEvaluateApp(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{
		stdin:     strings.NewReader(stdin),
		stdout:    &out,
		stderr:    &errOut,
		dir:       dir,
		lookupEnv: func(string) (string, bool) { return "", false },
	}
	code = a.run(t.Context(), args)
	return out.String(), errOut.String(), code
}

func TestEvaluateCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"answer.txt":     "the cat sat\n",
		"reference.txt":  "the cat sat on the mat\r\n",
		"two-lines.txt":  "the cat sat\n\n",
		"binary.bin":     "\xff\xfe\x00",
		"sub/nested.txt": "The Cat sat!",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const usageHint = "Run \"vectorlint evaluate --help\" for usage.\n"
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantOut    string
		wantErr    string
		wantStatus int
	}{
		{
			name:       "spec example",
			args:       []string{"evaluate", "f1", "--response", "the cat sat", "--ground-truth", "the cat sat on the mat", "--threshold", "0.5"},
			wantOut:    `{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "fail exits 1 and says why",
			args:       []string{"evaluate", "f1", "--response", "the cat", "--ground-truth", "the cat sat on the mat", "--threshold", "0.5"},
			wantOut:    `{"response": "the cat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.4, "f1_result": "fail"}` + "\n",
			wantErr:    "vectorlint evaluate: f1 score 0.40 below threshold 0.50\n",
			wantStatus: exitFindings,
		},
		{
			name:       "line output",
			args:       []string{"evaluate", "rouge_l", "--output", "line", "--response", "police killed the gunman", "--ground-truth", "the gunman killed police", "--threshold", "0.5"},
			wantOut:    `response="police killed the gunman" ground_truth="the gunman killed police" threshold=0.5 rouge_l_score=0.5 rouge_l_result=pass` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "flags before the metric",
			args:       []string{"evaluate", "--threshold=1", "--response=The Cat sat!", "--ground-truth=cat sat", "exact_match"},
			wantOut:    `{"response": "The Cat sat!", "ground_truth": "cat sat", "threshold": 1, "exact_match_score": 1, "exact_match_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "bleu",
			args:       []string{"evaluate", "bleu", "--response", "The cat is on the mat.", "--ground-truth", "There is a cat on the mat.", "--threshold", "0.5"},
			wantOut:    `{"response": "The cat is on the mat.", "ground_truth": "There is a cat on the mat.", "threshold": 0.5, "bleu_score": 0.394, "bleu_result": "fail"}` + "\n",
			wantErr:    "vectorlint evaluate: bleu score 0.394 below threshold 0.50\n",
			wantStatus: exitFindings,
		},
		{
			name:       "files without their final line ending",
			args:       []string{"evaluate", "f1", "--response", "@answer.txt", "--ground-truth", "@reference.txt", "--threshold", "0.6"},
			wantOut:    `{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.6, "f1_score": 0.667, "f1_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "only one line ending is removed",
			args:       []string{"evaluate", "exact_match", "--response", "@two-lines.txt", "--ground-truth", "@sub/nested.txt", "--threshold", "1"},
			wantOut:    `{"response": "the cat sat\n", "ground_truth": "The Cat sat!", "threshold": 1, "exact_match_score": 1, "exact_match_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "absolute path",
			args:       []string{"evaluate", "f1", "--response", "@" + filepath.Join(dir, "answer.txt"), "--ground-truth", "the cat sat", "--threshold", "1"},
			wantOut:    `{"response": "the cat sat", "ground_truth": "the cat sat", "threshold": 1, "f1_score": 1, "f1_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "standard input",
			stdin:      "the cat sat on the mat\n",
			args:       []string{"evaluate", "f1", "--response", "the cat sat", "--ground-truth", "@-", "--threshold", "0.5"},
			wantOut:    `{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "literal @",
			args:       []string{"evaluate", "exact_match", "--response", "@@alice", "--ground-truth", "alice", "--threshold", "1"},
			wantOut:    `{"response": "@alice", "ground_truth": "alice", "threshold": 1, "exact_match_score": 1, "exact_match_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "empty texts are allowed",
			args:       []string{"evaluate", "f1", "--response", "", "--ground-truth", "", "--threshold", "1"},
			wantOut:    `{"response": "", "ground_truth": "", "threshold": 1, "f1_score": 1, "f1_result": "pass"}` + "\n",
			wantStatus: exitOK,
		},
		{
			name:       "no metric",
			args:       []string{"evaluate", "--response", "a", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: expected a METRIC (exact_match, f1, bleu, rouge_l, semantic_similarity, bias, coverage)\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "two metrics",
			args:       []string{"evaluate", "f1", "bleu", "--response", "a", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: expected one METRIC, found 2 arguments: f1 bleu\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "unknown metric",
			args:       []string{"evaluate", "rouge", "--response", "a", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: unknown metric \"rouge\"; expected one of exact_match, f1, bleu, rouge_l, semantic_similarity, bias, coverage\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "semantic similarity needs a model",
			args:       []string{"evaluate", "semantic_similarity", "--response", "a", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: semantic_similarity needs a model: " + (&llm.NotConfiguredError{}).Error() + "\n",
			wantStatus: exitFailure,
		},
		{
			name:       "bias needs its flags",
			args:       []string{"evaluate", "bias", "--response", "a"},
			wantErr:    "vectorlint evaluate: --dimension is required\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "a flag of another metric",
			args:       []string{"evaluate", "f1", "--response", "a", "--ground-truth", "b", "--threshold", "0.5", "--dimension", "gender"},
			wantErr:    "vectorlint evaluate: --dimension does not apply to f1\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "model flags do not apply to offline metrics",
			args:       []string{"evaluate", "bleu", "--response", "a", "--ground-truth", "b", "--threshold", "0.5", "--provider", "openai"},
			wantErr:    "vectorlint evaluate: --provider does not apply to bleu\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "missing threshold",
			args:       []string{"evaluate", "f1", "--response", "a", "--ground-truth", "b"},
			wantErr:    "vectorlint evaluate: --threshold is required\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "missing ground truth",
			args:       []string{"evaluate", "f1", "--response", "a", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: --ground-truth is required\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "threshold not a number",
			args:       []string{"evaluate", "f1", "--response", "a", "--ground-truth", "b", "--threshold", "half"},
			wantErr:    "vectorlint evaluate: --threshold: expected a number, found \"half\"\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "threshold out of range",
			args:       []string{"evaluate", "f1", "--response", "a", "--ground-truth", "b", "--threshold", "50"},
			wantErr:    "vectorlint evaluate: f1 score: threshold 50 out of range: expected a number from 0 to 1\n",
			wantStatus: exitFailure,
		},
		{
			name:       "bad output format",
			args:       []string{"evaluate", "f1", "--response", "a", "--ground-truth", "b", "--threshold", "0.5", "--output", "xml"},
			wantErr:    "vectorlint evaluate: --output: expected \"json\" or \"line\", found \"xml\"\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "unknown flag",
			args:       []string{"evaluate", "f1", "--reference", "a"},
			wantErr:    "vectorlint evaluate: unknown flag: --reference\n" + usageHint,
			wantStatus: exitFailure,
		},
		{
			name:       "missing file",
			args:       []string{"evaluate", "f1", "--response", "@missing.txt", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: --response: cannot read missing.txt: no such file or directory\n",
			wantStatus: exitFailure,
		},
		{
			name:       "directory",
			args:       []string{"evaluate", "f1", "--response", "a", "--ground-truth", "@sub", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: --ground-truth: cannot read sub: is a directory\n",
			wantStatus: exitFailure,
		},
		{
			name:       "not UTF-8",
			args:       []string{"evaluate", "f1", "--response", "@binary.bin", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: --response: binary.bin is not UTF-8 text\n",
			wantStatus: exitFailure,
		},
		{
			name:       "no file name",
			args:       []string{"evaluate", "f1", "--response", "@", "--ground-truth", "b", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: --response: expected a file name after @, found none\n",
			wantStatus: exitFailure,
		},
		{
			name:       "standard input twice",
			stdin:      "text",
			args:       []string{"evaluate", "f1", "--response", "@-", "--ground-truth", "@-", "--threshold", "0.5"},
			wantErr:    "vectorlint evaluate: --ground-truth: standard input is already read by --response\n",
			wantStatus: exitFailure,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runEvaluateApp(t, dir, tt.stdin, tt.args...)
			if out != tt.wantOut {
				t.Errorf("stdout =\n%q\nwant\n%q", out, tt.wantOut)
			}
			if errOut != tt.wantErr {
				t.Errorf("stderr =\n%q\nwant\n%q", errOut, tt.wantErr)
			}
			if code != tt.wantStatus {
				t.Errorf("exit code = %d; want %d", code, tt.wantStatus)
			}
		})
	}
}

func TestEvaluateHelp(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--help", "-h"} {
		out, errOut, code := runEvaluateApp(t, t.TempDir(), "", "evaluate", flag)
		if code != exitOK || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q", flag, code, errOut)
		}
		for _, want := range []string{
			"Usage: vectorlint evaluate METRIC --response TEXT|@FILE --ground-truth TEXT|@FILE --threshold X [--output json|line]\n",
			"Exit status: 0 when it passes, 1 when it fails, 2 on bad input or a failed model call.\n",
			"  rouge_l               ROUGE-L F-measure (Google's rouge-score)\n",
			"      --threshold number        the pass mark, a number from 0 to 1 (-1 to 1 for semantic_similarity)\n",
			`"@-" reads standard input`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: help lacks %q:\n%s", flag, want, out)
			}
		}
	}
}

func TestEvaluateCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: t.TempDir(),
		lookupEnv: func(string) (string, bool) { return "", false }}
	code := a.run(ctx, []string{"evaluate", "rouge_l", "--response", "a", "--ground-truth", "a", "--threshold", "0.5"})
	if code != exitFailure || out.String() != "" || errOut.String() != "vectorlint evaluate: rouge_l score: context canceled\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

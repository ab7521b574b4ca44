// Package compare compares two runs of a blueprint (`vectorlint blueprint compare BASE.json
// NEW.json`, docs/blueprints.md): it reads the score of each prompt × model from the two result
// documents (ReadScoreSheet), finds its change, and whether it fell by more than a tolerance — a
// regression, which fails a CI gate (Runs). For each model in both runs, the paired change over
// the prompts both scored, with its confidence interval and permutation p-value
// (scoring.PairedTest), tells a real fall from noise (docs/blueprints.md, "Reading the
// statistics"); with FailIfWorse only such a fall fails. Write prints a comparison as a table,
// JSON, GitHub annotations or an HTML page.
package compare

package points

import (
	"fmt"
	"sync"

	"github.com/dop251/goja"
)

// maxJSString bounds what one built-in call of a $js script may produce: the characters of a
// string (repeat, padStart, padEnd, join, concat, replace, String.raw, JSON.stringify, a template
// literal) and the elements of an array (fill, Array.from, concat, flat). goja checks its time
// and memory limits between instructions only, so one built-in call that builds a huge value
// (String.prototype.repeat of 2^27 characters takes seconds and hundreds of megabytes; a
// replaceAll can ask for terabytes at once, which kills the process) would run on past them;
// these are refused before they start.
const maxJSString = 1 << 22

// maxJSItems bounds the items one built-in call creates as separate values or properties
// (split, a global match, Object.keys and the like, object spread and rest of a string or an
// array): each costs 50 to 160 bytes, so a million is the most one call may add.
const maxJSItems = 1 << 20

// maxJSArgs bounds the arguments of Function.prototype.apply, Reflect.apply and
// Reflect.construct: goja allocates them at once from the array-like's length ({length: 2**30}
// is 16 GB).
const maxJSArgs = 1 << 20

// maxJSPattern bounds the source of a regular expression built at run time (compiling a
// four-million-character pattern takes 700 MB) and of eval or Function, which are refused.
const maxJSPattern = 1 << 16

// jsGuards replaces the built-ins that can turn a small script into a huge allocation in one
// native call with versions that check the size first and throw a RangeError naming the limit,
// and makes the native iterators' next methods JavaScript functions, so that spreading or
// looping over a huge string or array runs instructions the time and memory limits can stop.
// The checks that need a loop (join, JSON.stringify) run in JavaScript, where the limits apply.
// Compiled on first use, not at start-up, which every command pays.
//
// Template literals and object spread and rest are syntax, not built-ins: rewriteJS turns
// them into calls of the checks defined here (__vlTemplate, __vlSpread, __vlRestCheck).
var jsGuards = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("guards", fmt.Sprintf(jsGuardsSource, maxJSString, maxJSItems, maxJSArgs, maxJSPattern, JSMemoryBudget, jsRegexpSuffix), true)
})

const jsGuardsSource = `(function (global) {
  'use strict';
  var max = %d, maxItems = %d, maxArgs = %d, maxPattern = %d, maxBytes = %d, suffix = %q;
  var apply = Reflect.apply, construct = Reflect.construct, defineProperty = Object.defineProperty,
      getPrototypeOf = Object.getPrototypeOf, isArray = Array.isArray, NativeRegExp = RegExp,
      nativeExec = RegExp.prototype.exec, NativeArrayBuffer = ArrayBuffer, nativeJoin = Array.prototype.join, nativeStringify = JSON.stringify;
  function tooLarge(what, unit) {
    throw new RangeError(what + ': the result would have more than ' + max + ' ' + unit + ', the $js limit');
  }
  function tooMany(what, limit, unit) {
    throw new RangeError(what + ': more than ' + limit + ' ' + unit + ', the $js limit');
  }
  // define replaces a built-in method: assigning keeps the property's attributes (writable,
  // not enumerable), and costs less than defineProperty, which every sandbox pays for each.
  function define(obj, name, fn) {
    obj[name] = fn;
  }
  function lengthOf(o) {
    if (o === null || o === undefined) return 0;
    var n = Number(o.length);
    return n > 0 ? n : 0;
  }
  // wrap replaces obj[name] by check(...) then the built-in, with the same this and arguments.
  function wrap(obj, name, what, check) {
    var native = obj[name];
    if (typeof native !== 'function') return;
    var fn = function () {
      check.call(this, arguments, what);
      return apply(native, this, arguments);
    };
    define(obj, name, fn);
    return fn;
  }
  // arrayLength refuses an array (or array-like) longer than the limit: a sparse array of
  // length 2**32-1 costs nothing to make, but sort, map, slice, toReversed… allocate or loop
  // over its length in one native call.
  function arrayLength(args, what) {
    if (lengthOf(this) > max) tooMany(what, max, 'elements');
  }

  // Strings and arrays joined: the characters are counted first, in JavaScript.
  function joinSize(a, separator, what) {
    var len = lengthOf(a);
    if (len > max) tooLarge(what, 'characters');
    var sep = separator === undefined ? 1 : String(separator).length;
    var total = len > 0 ? (len - 1) * sep : 0;
    for (var i = 0; i < len && total <= max; i++) {
      var e = a[i];
      if (e !== undefined && e !== null) total += typeof e === 'string' ? e.length : String(e).length;
    }
    if (total > max) tooLarge(what, 'characters');
  }
  var AP = Array.prototype, SP = String.prototype, nativeSplit = SP.split;
  var TAP = getPrototypeOf(Uint8Array.prototype);
  var nativeRepeat = SP.repeat, nativePadStart = SP.padStart, nativePadEnd = SP.padEnd,
      nativeFill = AP.fill, nativeFrom = Array.from;
  define(SP, 'repeat', function repeat(count) {
    var n = Math.floor(Number(count));
    if (n > 0 && String(this).length * n > max) tooLarge('String.prototype.repeat', 'characters');
    return apply(nativeRepeat, this, arguments);
  });
  define(SP, 'padStart', function padStart(length, fill) {
    if (Number(length) > max) tooLarge('String.prototype.padStart', 'characters');
    return apply(nativePadStart, this, arguments);
  });
  define(SP, 'padEnd', function padEnd(length, fill) {
    if (Number(length) > max) tooLarge('String.prototype.padEnd', 'characters');
    return apply(nativePadEnd, this, arguments);
  });
  [[AP, 'Array.prototype'], [TAP, '%%TypedArray%%.prototype']].forEach(function (p) {
    wrap(p[0], 'join', p[1] + '.join', function (args, what) { joinSize(this, args[0], what); });
    wrap(p[0], 'toLocaleString', p[1] + '.toLocaleString', function (args, what) { joinSize(this, ',', what); });
  });
  define(AP, 'fill', function fill(value, start, end) {
    if (lengthOf(this) > max) tooLarge('Array.prototype.fill', 'elements');
    return apply(nativeFill, this, arguments);
  });
  define(Array, 'from', function from(items, mapFn, thisArg) {
    if (items !== undefined && items !== null && Number(items.length) > max) tooLarge('Array.from', 'elements');
    return apply(nativeFrom, this, arguments);
  });
  ['copyWithin', 'entries', 'every', 'filter', 'find', 'findIndex', 'findLast', 'findLastIndex', 'forEach', 'includes',
   'indexOf', 'keys', 'lastIndexOf', 'map', 'reduce', 'reduceRight', 'reverse', 'shift', 'slice', 'some', 'sort',
   'splice', 'toReversed', 'toSorted', 'toSpliced', 'unshift', 'values', 'with'].forEach(function (name) {
    wrap(AP, name, 'Array.prototype.' + name, arrayLength);
  });
  define(AP, Symbol.iterator, AP.values);
  wrap(AP, 'concat', 'Array.prototype.concat', function (args, what) {
    var total = isArray(this) ? lengthOf(this) : 1;
    for (var i = 0; i < args.length && total <= max; i++) {
      var a = args[i];
      total += a !== null && typeof a === 'object' && (isArray(a) || a[Symbol.isConcatSpreadable]) ? lengthOf(a) : 1;
    }
    if (total > max) tooLarge(what, 'elements');
  });
  // flatSize counts the elements flat would produce, stopping once over the limit.
  function flatSize(a, depth) {
    var n = lengthOf(a);
    if (n > max) return max + 1;
    if (depth < 1) return n;
    var total = 0;
    for (var i = 0; i < n && total <= max; i++) {
      var e = a[i];
      total += isArray(e) ? flatSize(e, depth - 1) : 1;
    }
    return total;
  }
  wrap(AP, 'flat', 'Array.prototype.flat', function (args, what) {
    var depth = args[0] === undefined ? 1 : Math.floor(Number(args[0]));
    if (flatSize(this, depth > 0 ? depth : 0) > max) tooLarge(what, 'elements');
  });
  var nativeFlatMap = AP.flatMap;
  define(AP, 'flatMap', function flatMap(fn, thisArg) {
    if (lengthOf(this) > max) tooMany('Array.prototype.flatMap', max, 'elements');
    if (typeof fn !== 'function') return apply(nativeFlatMap, this, arguments);
    var count = 0;
    return apply(nativeFlatMap, this, [function (v, i, a) {
      var r = apply(fn, thisArg, [v, i, a]);
      count += isArray(r) ? lengthOf(r) : 1;
      if (count > max) tooLarge('Array.prototype.flatMap', 'elements');
      return r;
    }]);
  });

  // The native iterators become JavaScript: each step of a spread or for-of is an instruction.
  function iterateInJS(proto) {
    var native = proto.next;
    define(proto, 'next', function next() { return apply(native, this, arguments); });
  }
  iterateInJS(getPrototypeOf([][Symbol.iterator]()));
  iterateInJS(getPrototypeOf(''[Symbol.iterator]()));
  iterateInJS(getPrototypeOf(/x/g[Symbol.matchAll]('')));

  // Calls with an argument list built at once.
  function argsLength(what, list) {
    if (list !== null && (typeof list === 'object' || typeof list === 'function') && lengthOf(list) > maxArgs) tooMany(what, maxArgs, 'arguments');
  }
  var nativeApply = Function.prototype.apply, nativeConstruct = Reflect.construct;
  define(Function.prototype, 'apply', function (thisArg, list) {
    argsLength('Function.prototype.apply', list);
    return apply(nativeApply, this, arguments);
  });
  define(Reflect, 'apply', function (target, thisArg, list) {
    argsLength('Reflect.apply', list);
    return apply(target, thisArg, list);
  });
  define(Reflect, 'construct', function (target, list) {
    argsLength('Reflect.construct', list);
    return apply(nativeConstruct, undefined, arguments);
  });

  // Strings built from several: the characters are counted first.
  var nativeConcat = SP.concat;
  define(SP, 'concat', function concat() {
    if (this === null || this === undefined) return apply(nativeConcat, this, arguments);
    var parts = [], total = String(this).length;
    for (var i = 0; i < arguments.length; i++) {
      var s = String(arguments[i]);
      total += s.length;
      if (total > max) tooLarge('String.prototype.concat', 'characters');
      parts.push(s);
    }
    return apply(nativeConcat, this, parts);
  });
  var nativeRaw = String.raw;
  define(String, 'raw', function raw(strings) {
    var r = strings === null || strings === undefined ? strings : strings.raw;
    var n = lengthOf(r), total = 0;
    if (n > max) tooLarge('String.raw', 'characters');
    for (var i = 0; i < n && total <= max; i++) total += String(r[i]).length + (i + 1 < arguments.length ? String(arguments[i + 1]).length : 0);
    if (total > max) tooLarge('String.raw', 'characters');
    return apply(nativeRaw, this, arguments);
  });
  // global.__vlTemplate is what rewriteJS turns an untagged template literal into: the
  // substitutions are converted as a template converts them, then counted, then joined.
  defineProperty(global, '__vlTemplate', {value: function (strings) {
    var parts = [strings[0]], total = strings[0].length;
    for (var i = 1; i < arguments.length; i++) {
      var v = arguments[i];
      if (typeof v === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
      var s = String(v);
      total += s.length + strings[i].length;
      if (total > max) tooLarge('a template literal', 'characters');
      parts.push(s, strings[i]);
    }
    return apply(nativeJoin, parts, ['']);
  }});

  // substitutionPlan reads a replacement template once, as GetSubstitution expands it ($$, $&,
  // $ and a backquote, $', $n, $nn, $<name>): the literal characters, and how many times each
  // part of a match appears. substitutionLength then sizes one match's expansion from it.
  function substitutionPlan(rep, captureCount) {
    var plan = {fixed: 0, matched: 0, before: 0, after: 0, captures: {}, names: {}, named: false};
    for (var i = 0; i < rep.length; i++) {
      if (rep.charCodeAt(i) !== 36 || i + 1 >= rep.length) { plan.fixed++; continue; }
      var d = rep[i + 1];
      if (d === '$') { plan.fixed++; i++; }
      else if (d === '&') { plan.matched++; i++; }
      else if (d === '\x60') { plan.before++; i++; }
      else if (d === "'") { plan.after++; i++; }
      else if (d >= '0' && d <= '9') {
        var two = i + 2 < rep.length && rep[i + 2] >= '0' && rep[i + 2] <= '9' ? Number(d + rep[i + 2]) : -1;
        if (two >= 1 && two <= captureCount) { plan.captures[two] = (plan.captures[two] || 0) + 1; i += 2; }
        else if (Number(d) >= 1 && Number(d) <= captureCount) { plan.captures[d] = (plan.captures[d] || 0) + 1; i++; }
        else plan.fixed++;
      } else if (d === '<') {
        var close = rep.indexOf('>', i + 2);
        if (close < 0) { plan.fixed++; continue; }
        var name = rep.slice(i + 2, close);
        plan.names[name] = (plan.names[name] || 0) + 1;
        plan.named = true;
        plan.literalNamed = (plan.literalNamed || 0) + close - i + 1;
        i = close;
      } else plan.fixed++;
    }
    return plan;
  }
  function substitutionLength(plan, matched, position, str, captures, groups) {
    var total = plan.fixed + plan.matched * matched.length + plan.before * position +
      plan.after * Math.max(0, str.length - position - matched.length);
    for (var k in plan.captures) {
      var c = captures[Number(k) - 1];
      total += plan.captures[k] * (c === undefined ? 0 : String(c).length);
    }
    if (plan.named) {
      if (groups === undefined) total += plan.literalNamed;
      else for (var n in plan.names) { var g = groups[n]; total += plan.names[n] * (g === undefined ? 0 : String(g).length); }
    }
    return total;
  }
  // countMatches finds, in JavaScript and one match at a time, every match of a global regular
  // expression before a native operation (replace, replaceAll, a global match, split) finds
  // them all in one call. Each match is bounded in time (jsRegexpTimeout), but not their number,
  // and a native call does not see the script's time limit: run here first, the matches are
  // separate instructions that the limit stops, so the native call that follows repeats work
  // that fitted in the limit. In a string long enough to hold more than maxItems matches, it
  // also refuses more (the native operations hold them all before they build anything: 400 MB
  // for four million).
  function countMatches(str, pattern, all, what, unit) {
    unit = unit || 'matches';
    var n = 0, per = 1, long = str.length >= maxItems;
    if (pattern instanceof NativeRegExp) {
      if (!all && !pattern.global) return;
      var flags = pattern.flags.indexOf('g') < 0 ? pattern.flags + 'g' : pattern.flags;
      // Made from the object, so it keeps its bounded pattern (the source getter hides the suffix).
      var rx = new NativeRegExp(pattern, flags), m;
      if (long) per = new NativeRegExp('|' + pattern.source + suffix, pattern.flags.replace('y', '')).exec('').length;
      while ((m = apply(nativeExec, rx, [str])) !== null) {
        if ((++n) * per > maxItems && long) tooMany(what, maxItems, unit);
        if (m[0] === '') rx.lastIndex++;
      }
    } else if (all && long) {
      // A string pattern: split with a limit counts natively and stops at the limit.
      if (apply(nativeSplit, str, [String(pattern), maxItems + 2]).length > maxItems + 1) tooMany(what, maxItems, unit);
    }
  }
  // replaceGuard checks a replace: the matches are counted first (a regular expression's by
  // RegExp.prototype[Symbol.replace], which String.prototype.replace and replaceAll call), and
  // with a replacement string whose result could be over the limit, the result is measured
  // first with a replacer function that only counts.
  function replaceGuard(native, what, all) {
    return function (pattern, replacement) {
      if (this === null || this === undefined) return apply(native, this, arguments);
      var str = String(this);
      if (!(pattern instanceof NativeRegExp) || what === 'RegExp.prototype[Symbol.replace]') countMatches(str, pattern, all, what);
      if (typeof replacement === 'function') return apply(native, this, arguments);
      var rep = String(replacement);
      var matches = all ? str.length + 1 : 1;
      if (rep.indexOf('$') < 0 && str.length + matches * rep.length <= max) return apply(native, this, arguments);
      if (rep.indexOf('$') >= 0 && str.length * (1 + rep.length) + rep.length <= max) return apply(native, this, arguments);
      var total = 0, plan;
      apply(native, this, [pattern, function (matched) {
        var n = arguments.length, groups = arguments[n - 1], position, captures;
        if (typeof groups === 'object' && groups !== null) { position = arguments[n - 3]; captures = [].slice.call(arguments, 1, n - 3); }
        else { groups = undefined; position = arguments[n - 2]; captures = [].slice.call(arguments, 1, n - 2); }
        plan = plan || substitutionPlan(rep, captures.length);
        total += substitutionLength(plan, matched, position, str, captures, groups) - matched.length;
        if (str.length + total > max) tooLarge(what, 'characters');
        return '';
      }]);
      return apply(native, this, arguments);
    };
  }
  define(SP, 'replace', replaceGuard(SP.replace, 'String.prototype.replace', false));
  define(SP, 'replaceAll', replaceGuard(SP.replaceAll, 'String.prototype.replaceAll', true));
  var RP = NativeRegExp.prototype, nativeRegExpReplace = RP[Symbol.replace];
  define(RP, Symbol.replace, function (string, replacement) {
    var rx = this;
    // A replace finds one match, or every match of a global expression.
    return apply(replaceGuard(function (p, r) { return apply(nativeRegExpReplace, rx, [this, r]); }, 'RegExp.prototype[Symbol.replace]', !!rx.global),
      String(string), [rx, replacement]);
  });
  // Every pattern of a script runs on regexp2, whose scans stop at jsRegexpTimeout (Go's regexp,
  // which goja prefers, never stops: x{1000}z takes a minute over a few million characters):
  // rewriteJS appends suffix, an empty lookahead that Go's regexp cannot compile, to every
  // literal, and boundedPattern to every pattern built at run time. source and toString hide it.
  var sourceGetter = Object.getOwnPropertyDescriptor(RP, 'source').get, BoundedRegExp;
  function toStr(x) {
    if (typeof x === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
    return String(x);
  }
  function isRegExpObject(p) {
    if (p === null || typeof p !== 'object' || p === RP) return false;
    try { apply(sourceGetter, p, []); return true; } catch (e) { return false; }
  }
  // boundedPattern returns the arguments for the RegExp constructor (or compile) that give the
  // same expression with the suffix: a RegExp object already has it, and the pattern of
  // anything else is read as the constructor reads it (IsRegExp, then source and flags, or
  // ToString).
  function boundedPattern(what, p, f) {
    var m = p !== null && typeof p === 'object' ? p[Symbol.match] : undefined;
    var isRe = m !== undefined ? !!m : isRegExpObject(p), src;
    if (isRe && isRegExpObject(p)) return [p, f];
    if (isRe) {
      src = toStr(p.source);
      if (f === undefined) f = p.flags;
    } else {
      src = p === undefined ? '' : toStr(p);
    }
    patternLength(what, src);
    return [src + suffix, f];
  }
  defineProperty(RP, 'source', {configurable: true, enumerable: false, get: function () {
    var s = apply(sourceGetter, this, []);
    if (typeof s !== 'string' || s.slice(s.length - suffix.length) !== suffix) return s;
    s = s.slice(0, s.length - suffix.length);
    return s === '' ? '(?:)' : s;
  }});
  define(RP, 'toString', function toString() {
    if (this === null || (typeof this !== 'object' && typeof this !== 'function')) throw new TypeError('RegExp.prototype.toString requires that this be an Object');
    return '/' + toStr(this.source) + '/' + toStr(this.flags);
  });

  // A global match and a split find every match in one native call: counted first.
  var nativeRegExpMatch = RP[Symbol.match], nativeRegExpSplit = RP[Symbol.split];
  define(RP, Symbol.match, function (string) {
    var str = toStr(string);
    countMatches(str, this, false, 'RegExp.prototype[Symbol.match]');
    return apply(nativeRegExpMatch, this, [str]);
  });
  define(RP, Symbol.split, function (string, limit) {
    var str = toStr(string);
    countMatches(str, this, true, 'RegExp.prototype[Symbol.split]', 'items');
    return apply(nativeRegExpSplit, this, [str, limit]);
  });

  // Items created one per character or match: split asks for one more than the limit at most.
  define(SP, 'split', function split(separator, limit) {
    var lim = limit === undefined ? 4294967295 : Number(limit) >>> 0;
    if (this === null || this === undefined || lim <= maxItems) return apply(nativeSplit, this, arguments);
    if (!(separator instanceof NativeRegExp)) countMatches(String(this), separator, true, 'String.prototype.split', 'items');
    var parts = apply(nativeSplit, this, [separator, maxItems + 1]);
    if (parts.length > maxItems) tooMany('String.prototype.split', maxItems, 'items');
    return parts;
  });
  function patternLength(what, p) {
    if (typeof p === 'string' && p.length > maxPattern) tooMany(what, maxPattern, 'characters of pattern');
  }
  // match, matchAll and search make a regular expression of an argument that is none
  // (RegExpCreate): made here, with the bounded RegExp, so that it runs on regexp2 too.
  function regExpArg(regexp, sym, flags) {
    if (regexp !== undefined && regexp !== null && regexp[sym] !== undefined && regexp[sym] !== null) return regexp;
    return new BoundedRegExp(regexp, flags);
  }
  [['match', Symbol.match, undefined], ['matchAll', Symbol.matchAll, 'g'], ['search', Symbol.search, undefined]].forEach(function (m) {
    var native = SP[m[0]], what = 'String.prototype.' + m[0];
    define(SP, m[0], function (regexp) {
      patternLength(what, regexp);
      if (this === null || this === undefined) return apply(native, this, arguments);
      return apply(native, this, [regExpArg(regexp, m[1], m[2])]);
    });
  });
  ['encodeURI', 'encodeURIComponent', 'escape'].forEach(function (name) {
    wrap(global, name, name, function (args, what) {
      if (String(args[0]).length > max) tooMany(what, max, 'characters of input');
    });
  });
  wrap(JSON, 'parse', 'JSON.parse', function (args, what) {
    if (String(args[0]).length > max) tooMany(what, max, 'characters of input');
  });

  // Keys listed at once: a string or typed array has one per element.
  function keysOf(args, what) {
    var o = args[0];
    if (o !== null && o !== undefined && typeof o !== 'number' && typeof o !== 'boolean' && lengthOf(o) > maxItems) tooMany(what, maxItems, 'keys');
  }
  ['keys', 'values', 'entries', 'getOwnPropertyNames', 'getOwnPropertyDescriptors'].forEach(function (name) {
    wrap(Object, name, 'Object.' + name, keysOf);
  });
  wrap(Reflect, 'ownKeys', 'Reflect.ownKeys', keysOf);
  wrap(Object, 'assign', 'Object.assign', function (args, what) {
    for (var i = 1; i < args.length; i++) keysOf([args[i]], what);
  });
  wrap(Object, 'defineProperties', 'Object.defineProperties', function (args, what) { keysOf([args[1]], what); });
  wrap(Object, 'create', 'Object.create', function (args, what) { keysOf([args[1]], what); });
  // global.__vlSpread and the __vlRestCheck getter are what rewriteJS puts in object spread
  // ({...x}) and object rest ({...rest} = x): they copy a property per element.
  defineProperty(global, '__vlSpread', {value: function (x) { keysOf([x], 'object spread'); return x; }});
  var restKey = Symbol('__vlRestCheck');
  defineProperty(global, '__vlRestCheck', {value: restKey});
  defineProperty(Object.prototype, restKey, {get: function () { keysOf([this], 'object rest'); return 0; }});
  defineProperty(SP, restKey, {get: function () { keysOf([this], 'object rest'); return 0; }});

  // Constructors that allocate from a number: ArrayBuffer and the typed arrays (bytes), RegExp
  // (its pattern), Function and eval (refused: code built at run time escapes rewriteJS).
  // guardConstructor replaces global[name] by a function that checks its arguments, then
  // constructs (or calls) the built-in. It shares the built-in's prototype, so instanceof,
  // .constructor, subclasses and species constructors (which now go through the check) work as
  // before, and inherits its static members.
  // check may return the arguments to construct with instead.
  function guardConstructor(name, check) {
    var native = global[name];
    if (typeof native !== 'function') return;
    var guarded = function () {
      var args = check(arguments) || arguments;
      return new.target === undefined ? apply(native, this, args) : construct(native, args, new.target);
    };
    // Static members (from, of, BYTES_PER_ELEMENT, isView, the species getter) are inherited.
    Object.setPrototypeOf(guarded, native);
    defineProperty(guarded, 'prototype', {value: native.prototype, writable: false, enumerable: false, configurable: false});
    if (native.prototype) defineProperty(native.prototype, 'constructor', {value: guarded, writable: true, configurable: true, enumerable: false});
    defineProperty(global, name, {value: guarded, writable: true, configurable: true, enumerable: false});
  }
  function bytes(what, n) {
    if (n > maxBytes) tooMany(what, maxBytes, 'bytes');
  }
  guardConstructor('ArrayBuffer', function (args) { bytes('ArrayBuffer', Number(args[0]) || 0); });
  ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
   'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Float16Array'].forEach(function (name) {
    var size = global[name] && global[name].BYTES_PER_ELEMENT;
    guardConstructor(name, function (args) {
      var a = args[0];
      if (typeof a === 'object' && a !== null && !(a instanceof NativeArrayBuffer)) bytes(name, lengthOf(a) * size);
      else if (typeof a !== 'object') bytes(name, (Number(a) || 0) * size);
    });
  });
  guardConstructor('RegExp', function (args) { return boundedPattern('RegExp', args[0], args[1]); });
  BoundedRegExp = global.RegExp;
  function noCodeFromStrings(what) {
    return function () { throw new EvalError(what + ' is not available in $js: code built from strings at run time is not allowed'); };
  }
  guardConstructor('Function', function () { noCodeFromStrings('Function')(); });
  [function* () {}, async function () {}].forEach(function (f) {
    var proto = getPrototypeOf(f);
    defineProperty(proto, 'constructor', {value: noCodeFromStrings(proto.constructor.name), writable: true, configurable: true});
  });
  defineProperty(global, 'eval', {value: noCodeFromStrings('eval'), writable: true, configurable: true, enumerable: false});
  var nativeCompile = RP.compile;
  if (typeof nativeCompile === 'function') define(RP, 'compile', function compile(pattern, flags) {
    return apply(nativeCompile, this, boundedPattern('RegExp.prototype.compile', pattern, flags));
  });

  // size estimates the characters JSON.stringify would write, stopping once over the limit.
  // A sub-object is written each time it appears, so it counts each time, but its size is
  // computed once (seen), which keeps the estimate linear in the number of distinct objects.
  // Past a depth of 200 the native call decides (it reports cycles).
  function size(v, depth, seen) {
    if (typeof v === 'string') return v.length + 2;
    if (v === null || typeof v !== 'object') return 8;
    if (depth > 200) return 0;
    var known = seen.get(v);
    if (known !== undefined) return known;
    var total = 2, i;
    if (isArray(v)) {
      for (i = 0; i < v.length && total <= max; i++) total += size(v[i], depth + 1, seen) + 1;
    } else {
      var keys = Object.keys(v);
      for (i = 0; i < keys.length && total <= max; i++) total += size(v[keys[i]], depth + 1, seen) + keys[i].length + 4;
    }
    seen.set(v, total);
    return total;
  }
  define(JSON, 'stringify', function stringify(value, replacer, space) {
    if (size(value, 0, new Map()) > max) tooLarge('JSON.stringify', 'characters');
    return apply(nativeStringify, JSON, arguments);
  });
})(this);`

// lastword: a little progressive enhancement. Every form also works without JavaScript.
"use strict";
(function () {
  const csrf = () => document.querySelector("main")?.dataset.csrf || "";

  // Text goes in as text: every message is a text node, never HTML.
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function errorLine(text) {
    const p = el("p", "alert error", text);
    p.setAttribute("role", "alert");
    return p;
  }
  // Hooks for content that arrives after the page loaded (the Ask fragment, refreshed tables).
  function enhance(root) {
    root.querySelectorAll("[data-back]").forEach((a) => a.addEventListener("click", (e) => { e.preventDefault(); history.back(); }));
    root.querySelectorAll("form[data-confirm]").forEach((form) => {
      form.addEventListener("submit", (event) => { if (!confirm(form.dataset.confirm)) event.preventDefault(); });
    });
  }

  // Ask: the question just answered becomes the last of the earlier ones a follow-up reads.
  function rememberQuestion(form, q) {
    const most = Number(form.dataset.maxTurns || 0);
    if (!most) return;
    const input = document.createElement("input");
    input.type = "hidden"; input.name = "after"; input.value = q;
    form.querySelector("button").before(input);
    const kept = form.querySelectorAll('input[name="after"]');
    for (let i = 0; i < kept.length - most; i++) kept[i].remove();
  }

  // Ask: fetch only the answer fragment and show progress while the pipeline works.
  document.querySelectorAll("form[data-fragment]").forEach((form) => {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const q = new FormData(form).get("q");
      const target = document.querySelector(form.dataset.target);
      const progress = form.parentElement.querySelector(".progress");
      const elapsed = progress?.querySelector(".elapsed");
      const started = performance.now();
      const timer = setInterval(() => { if (elapsed) elapsed.textContent = ((performance.now() - started) / 1000).toFixed(1) + " s"; }, 100);
      if (progress) progress.hidden = false;
      form.querySelector("button").disabled = true;
      try {
        // every field: the question, the filter bar and the earlier questions ("after")
        const url = form.dataset.fragment + "?" + new URLSearchParams(new FormData(form)).toString();
        const response = await fetch(url, { headers: { Accept: "text/html" } });
        const html = await response.text();
        const doc = new DOMParser().parseFromString(html, "text/html");
        // An error page is a whole document: show its message, not its chrome.
        const alert = doc.querySelector("[role=alert]");
        if (response.ok) {
          // The server's own escaped fragment, moved in as nodes (never re-parsed as a string).
          target.replaceChildren(...Array.from(doc.body.childNodes, (node) => document.adoptNode(node)));
          enhance(target);
          rememberQuestion(form, q);
        } else {
          target.replaceChildren(errorLine(alert ? alert.textContent : response.statusText));
        }
        history.replaceState(null, "", "/ask?q=" + encodeURIComponent(q));
      } catch (err) {
        target.replaceChildren(errorLine("The server did not answer: " + err));
      } finally {
        clearInterval(timer);
        if (progress) progress.hidden = true;
        form.querySelector("button").disabled = false;
      }
    });
  });

  // Upload and eval forms: submit in the background, then follow the job's progress.
  function renderJob(job) {
    let box = document.querySelector('[data-job="' + job.id + '"]');
    if (!box) {
      box = el("div", "job");
      box.dataset.job = job.id;
      const head = el("div", "job-head");
      head.append(el("strong"), " ", el("span", "badge"), " ", el("span", "job-message muted"));
      const bar = el("progress");
      bar.max = 1; bar.value = 0;
      box.append(head, bar, " ", el("span", "job-count muted small"), el("ul", "job-failures"));
      if (job.kind === "ingest") {  // only an admin uploads: the same Cancel as the page's
        const cancel = el("form", "job-cancel");
        cancel.method = "post";
        cancel.action = "/corpus/jobs/" + encodeURIComponent(job.id) + "/cancel";
        const token = el("input");
        token.type = "hidden"; token.name = "csrf_token"; token.value = csrf();
        cancel.append(token, el("button", "", "Cancel"));
        head.after(cancel);
      }
      document.getElementById("jobs")?.prepend(box);
    }
    box.dataset.state = job.state;
    box.className = "job job-" + job.state;
    const finished = job.state === "done" || job.state === "failed" || job.state === "cancelled";
    box.querySelector("form.job-cancel")?.toggleAttribute("hidden", finished);
    box.querySelector("strong").textContent = job.label;
    box.querySelector(".badge").textContent = job.state;
    box.querySelector(".job-message").textContent = job.error || job.message;
    const bar = box.querySelector("progress");
    bar.max = job.total || 1; bar.value = job.done;
    box.querySelector(".job-count").textContent = job.done + " / " + job.total + " " + job.unit;
    const failures = box.querySelector(".job-failures");
    failures.replaceChildren(...(job.result.failed || []).map((f) => {
      const li = document.createElement("li");
      li.className = "alert error";
      li.textContent = f.file + (f.line ? ":" + f.line : "") + ": " + f.message;
      return li;
    }));
    if (job.result.report && !box.querySelector("a.report-link")) {
      const p = el("p");
      const link = el("a", "report-link", "Open the report");
      link.href = job.result.report;
      p.append(link);
      box.append(p);
    }
    return box;
  }

  async function refreshParts(selectors) {
    const response = await fetch(location.pathname, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    selectors.forEach((selector) => {
      const fresh = doc.querySelector(selector);
      const here = document.querySelector(selector);
      if (fresh && here) {
        here.replaceWith(document.adoptNode(fresh));
        enhance(document.querySelector(selector));
      }
    });
  }

  async function follow(jobId) {
    for (;;) {
      const response = await fetch("/api/jobs/" + encodeURIComponent(jobId), { headers: { Accept: "application/json" } });
      const job = await response.json();
      if (!response.ok) return;
      renderJob(job);
      if (job.state === "done" || job.state === "failed" || job.state === "cancelled") {
        // The page's own figures (document count, table, runs) are fetched again in place.
        if (job.state === "done") refreshParts(job.kind === "ingest" ? ["#corpus-info", "#documents"] : ["#runs"]);
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  document.querySelectorAll("form[data-job-form]").forEach((form) => {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = form.querySelector("button");
      button.disabled = true;
      try {
        const response = await fetch(form.action, {
          method: "POST", body: new FormData(form),
          headers: { Accept: "application/json", "X-CSRF-Token": csrf() },
        });
        const body = await response.json();
        if (!response.ok) {
          document.getElementById("jobs")?.prepend(errorLine(body.error ? body.error.message : response.statusText));
          return;
        }
        form.reset();
        renderJob(body);
        follow(body.id);
      } finally {
        button.disabled = false;
      }
    });
  });

  // Jobs already running when the page loads.
  document.querySelectorAll('[data-job][data-state="running"], [data-job][data-state="queued"]').forEach((box) => follow(box.dataset.job));

  enhance(document);
})();

// lastword: a little progressive enhancement. Every form also works without JavaScript.
"use strict";
(function () {
  const csrf = () => document.querySelector("main")?.dataset.csrf || "";

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
        const url = form.dataset.fragment + "?q=" + encodeURIComponent(q);
        const response = await fetch(url, { headers: { Accept: "text/html" } });
        const html = await response.text();
        const doc = new DOMParser().parseFromString(html, "text/html");
        // An error page is a whole document: show its message, not its chrome.
        const alert = doc.querySelector("[role=alert]");
        target.innerHTML = response.ok ? html : '<p class="alert error">' + (alert ? alert.textContent : response.statusText) + "</p>";
        history.replaceState(null, "", "/ask?q=" + encodeURIComponent(q));
      } catch (err) {
        target.innerHTML = '<p class="alert error">The server did not answer: ' + err + "</p>";
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
      box = document.createElement("div");
      box.className = "job";
      box.dataset.job = job.id;
      box.innerHTML = '<div class="job-head"><strong></strong> <span class="badge"></span> <span class="job-message muted"></span></div><progress max="1" value="0"></progress> <span class="job-count muted small"></span><ul class="job-failures"></ul>';
      document.getElementById("jobs")?.prepend(box);
    }
    box.dataset.state = job.state;
    box.className = "job job-" + job.state;
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
      const p = document.createElement("p");
      p.innerHTML = '<a class="report-link">Open the report</a>';
      p.firstChild.href = job.result.report;
      box.append(p);
    }
    return box;
  }

  async function follow(jobId) {
    for (;;) {
      const response = await fetch("/api/jobs/" + encodeURIComponent(jobId), { headers: { Accept: "application/json" } });
      const job = await response.json();
      if (!response.ok) return;
      renderJob(job);
      if (job.state === "done" || job.state === "failed") {
        if (job.state === "done" && job.kind === "ingest") setTimeout(() => location.reload(), 1200);
        if (job.state === "done" && job.kind === "eval") setTimeout(() => location.reload(), 1200);
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
          const p = document.createElement("p");
          p.className = "alert error";
          p.setAttribute("role", "alert");
          p.textContent = body.error ? body.error.message : response.statusText;
          document.getElementById("jobs")?.prepend(p);
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

  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => { if (!confirm(form.dataset.confirm)) event.preventDefault(); });
  });
})();

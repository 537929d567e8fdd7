// Page helpers for driving the VS Code workbench (code-server) in Chromium with playwright-core:
// the command palette, quick inputs, notifications, the Service view's trees and the editor.
// Every wait is on a DOM condition (playwright's auto-waiting locators); no fixed sleeps.

const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_BOX = `${QUICK_INPUT} .quick-input-box input`;
const QUICK_ROWS = `${QUICK_INPUT} .quick-input-list .monaco-list-row`;

export class Workbench {
  /** @param {import('playwright-core').Page} page */
  constructor(page, { timeoutMs = 30_000 } = {}) {
    this.page = page;
    this.timeoutMs = timeoutMs;
    page.setDefaultTimeout(timeoutMs);
  }

  /** Opens the workbench URL and waits for the workbench and the extension's activity-bar item. */
  async open(url, containerTitle = 'Service') {
    await this.page.goto(url);
    await this.page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await this.activityItem(containerTitle).waitFor({ timeout: 90_000 });
  }

  activityItem(title) {
    return this.page
      .locator('.activitybar .action-item')
      .filter({ has: this.page.locator(`.action-label[aria-label^="${title}"]`) })
      .first();
  }

  /** Shows a view container (clicking its activity-bar item only if it is not already shown). */
  async showContainer(title = 'Service') {
    const item = this.activityItem(title);
    if (!((await item.getAttribute('class')) ?? '').split(/\s+/).includes('checked')) await item.click();
    await this.page.locator('.sidebar .pane-header').first().waitFor();
  }

  /** Drags the side bar's edge so it is `width` px wide (long tree labels fit in screenshots). */
  async resizeSidebar(width) {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + box.width - 1, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 5 });
    await this.page.mouse.up();
    await this.page.waitForFunction((w) => Math.abs(document.querySelector('.part.sidebar').getBoundingClientRect().width - w) < 8, width);
  }

  /** The pane of a view in the side bar, by its title ("Webhooks", "Relay"). */
  pane(title) {
    return this.page.locator('.sidebar .pane', { has: this.page.locator(`.pane-header h3.title:text-is("${title}")`) });
  }

  /** Tree rows of a view pane whose text contains `text` (a string or RegExp). */
  treeRow(paneTitle, text) {
    return this.pane(paneTitle).locator('.monaco-list-row', { hasText: text });
  }

  /** The row `n` places below `row` in the same tree (by the list's data-index, not DOM order). */
  async rowBelow(paneTitle, row, n = 1) {
    await row.waitFor();
    const index = Number(await row.getAttribute('data-index'));
    return this.pane(paneTitle).locator(`.monaco-list-row[data-index="${index + n}"]`);
  }

  /** Expands a collapsed tree row (no-op if expanded). */
  async expand(row) {
    await row.waitFor();
    if ((await row.getAttribute('aria-expanded')) === 'false') {
      await row.locator('.monaco-tl-twistie').click();
      await this.page.waitForFunction((el) => el.getAttribute('aria-expanded') === 'true', await row.elementHandle());
    }
  }

  /** F1, '>' + title, wait until the focused row is the command, Enter. */
  async runCommand(title) {
    await this.closeQuickInput();
    await this.page.keyboard.press('F1');
    const box = this.page.locator(QUICK_INPUT_BOX);
    await box.waitFor();
    await box.fill(`>${title}`);
    await this.page.locator(`${QUICK_ROWS}.focused`, { hasText: title }).first().waitFor();
    await this.page.keyboard.press('Enter');
  }

  async closeQuickInput() {
    if (await this.page.locator(QUICK_INPUT).isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.page.locator(QUICK_INPUT).waitFor({ state: 'hidden' });
    }
  }

  /** Waits for a visible quick input whose title contains `title` (string or RegExp). */
  async waitForQuickInput(title) {
    const widget = this.page.locator(QUICK_INPUT);
    await widget.waitFor();
    if (title) await widget.locator('.quick-input-title', { hasText: title }).waitFor();
    return widget;
  }

  /** In an open quick pick: types a filter, waits for the focused row to contain `text`, Enter. */
  async pick(text, { filter = text } = {}) {
    const box = this.page.locator(QUICK_INPUT_BOX);
    await box.fill(filter);
    await this.page.locator(`${QUICK_ROWS}.focused`, { hasText: text }).first().waitFor();
    await this.page.keyboard.press('Enter');
  }

  /** In an open multi-select quick pick: checks the rows with exactly these labels (see acceptPick). */
  async checkItems(labels) {
    for (const label of labels) {
      const toggle = this.page.locator(`${QUICK_ROWS}[aria-label="${label}"] .monaco-checkbox`);
      if ((await toggle.getAttribute('aria-checked')) !== 'true') await toggle.click();
      await this.page.locator(`${QUICK_ROWS}[aria-label="${label}"] .monaco-checkbox[aria-checked="true"]`).waitFor();
    }
  }

  /** Presses the OK button of an open multi-select quick pick. */
  async acceptPick() {
    await this.page.locator(`${QUICK_INPUT} .quick-input-action a.monaco-button`, { hasText: /^OK$/ }).click();
  }

  /** Types into the open input box (e.g. a token) and presses Enter. */
  async submitInput(value, { title } = {}) {
    await this.waitForQuickInput(title);
    const box = this.page.locator(QUICK_INPUT_BOX);
    await box.fill(value);
    await this.page.keyboard.press('Enter');
  }

  /** A notification toast whose message matches `text`. */
  notification(text) {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text });
  }

  /**
   * Waits for a notification whose message matches `text`: as a toast, or else in the notification
   * center. VS Code shows at most 3 new toasts per 800 ms (its spam protection); one past that goes
   * to the center without a toast, as a user finds it under the bell. SERVICE_HOOKS_E2E_TOAST_MS
   * (default 5000) is how long a toast is waited for first; 0 checks the center path.
   */
  async seeNotification(text) {
    const toastMs = Number(process.env.SERVICE_HOOKS_E2E_TOAST_MS ?? 5000);
    if (
      toastMs > 0 &&
      (await this.notification(text)
        .waitFor({ timeout: toastMs })
        .then(
          () => true,
          () => false,
        ))
    )
      return;
    // The command that shows it may still have its input open: opening the palette now would cancel it.
    await this.page.locator(QUICK_INPUT).waitFor({ state: 'hidden' });
    await this.runCommand('Notifications: Show Notifications');
    await this.page.locator('.notifications-center .notification-list-item', { hasText: text }).first().waitFor();
    process.stdout.write(`    (notification ${text} found under the bell, not as a toast)\n`);
    await this.runCommand('Notifications: Hide Notifications');
    await this.page.locator('.notifications-center').first().waitFor({ state: 'hidden' });
  }

  async clearNotifications() {
    await this.page.evaluate(() => {
      for (const el of document.querySelectorAll('.notifications-toasts .notification-toast .codicon-notifications-clear')) el.click();
    });
    await this.page
      .locator('.notifications-toasts .notification-toast')
      .first()
      .waitFor({ state: 'detached' })
      .catch(() => {});
  }

  /** Quick Open (Ctrl+P) a file by name and wait for its editor tab. */
  async openFile(name) {
    await this.closeQuickInput();
    await this.page.keyboard.press('Control+P');
    const box = this.page.locator(QUICK_INPUT_BOX);
    await box.waitFor();
    await box.fill(name);
    await this.page.locator(`${QUICK_ROWS}.focused`, { hasText: name }).first().waitFor();
    await this.page.keyboard.press('Enter');
    await this.page.locator('.tabs-container .tab.active', { hasText: name }).waitFor();
    await this.page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor();
  }

  async screenshot(path) {
    await this.page.screenshot({ path });
    return path;
  }
}

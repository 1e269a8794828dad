// The kiosk helpers live in the page kit; this path stays for pages that import it by its old name.
export * from "./kit.js";

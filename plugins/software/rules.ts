/**
 * The software plugin's detection rules: which request URLs, response headers, HTML, meta
 * generators and cookies give away a CMS, web server, operating system, language or accessibility
 * overlay, and which version. Written for this service (webperf_core's software-rules.json was read
 * for what to look for, not copied), aimed at what Swedish public bodies run: Sitevision,
 * Episerver/Optimizely, WordPress, Drupal, Umbraco, Joomla, TYPO3, Sitecore; nginx, Apache, IIS,
 * LiteSpeed, Varnish, Tomcat; PHP, ASP.NET, Java.
 *
 * JavaScript libraries are not here: RetireJS's repository finds them (retire-scan.ts), and a
 * generic banner rule (BANNER) names libraries it does not know.
 *
 * A rule yields detections: a category, a software key (data.ts and NAMES know it) and a version,
 * each literal or taken from the match's `name` and `version` groups (a function sees every group).
 */

export type SoftwareCategory =
  | 'cms'
  | 'webserver'
  | 'os'
  | 'tech'
  | 'js'
  | 'analytics'
  | 'a11y_overlay'
  | 'wordpress-plugin'
  | 'wordpress-theme';

/** The categories in the order the overall review lists them (upstream's order). */
export const CATEGORY_ORDER: readonly SoftwareCategory[] = ['cms', 'webserver', 'os', 'analytics', 'tech', 'js', 'a11y_overlay', 'wordpress-plugin', 'wordpress-theme'];

export interface Yield {
  category: SoftwareCategory;
  /** The software key; absent: the match's `name` group. */
  key?: string;
  /** The version; absent: the match's `version` group (none when the group did not match). */
  version?: string | null;
}

type Groups = Record<string, string | undefined>;
type Yields = readonly Yield[] | ((groups: Groups) => readonly Yield[]);

export interface Rule {
  /** Stable id, for data and tests. */
  id: string;
  re: RegExp;
  yields: Yields;
}

export interface UrlRule extends Rule {
  /** Also on other sites' URLs (overlays and CDNs are third parties); default: the page's own site only. */
  anyHost?: boolean;
}

export interface HeaderRule extends Rule {
  /** Lower-case header name. */
  header: string;
}

/** A version as servers and generators write it: 1.18.0, 7.4, OpenSSL's 1.1.1f. */
const V = String.raw`(?<version>\d+(?:\.\d+)*[a-z]?)`;

/** A URL on the host or any subdomain of one of the domains (lower-case URL, any port). */
function onHost(...domains: string[]): RegExp {
  const alt = domains.map((d) => d.replace(/[.]/g, '\\.')).join('|');
  return new RegExp(String.raw`^https?://(?:[^/?#@]*\.)?(?:${alt})(?::\d+)?(?:[/?#]|$)`);
}

const cms = (key: string): Yield => ({ category: 'cms', key, version: null });
const tech = (key: string): Yield => ({ category: 'tech', key, version: null });

/** Display names of the software keys; a key without one is shown as it is. */
export const NAMES: Record<string, string> = {
  sitevision: 'Sitevision', episerver: 'Episerver/Optimizely CMS', wordpress: 'WordPress', drupal: 'Drupal',
  umbraco: 'Umbraco', joomla: 'Joomla', typo3: 'TYPO3', sitecore: 'Sitecore', wix: 'Wix', webflow: 'Webflow',
  squarespace: 'Squarespace', ghost: 'Ghost', contao: 'Contao', concrete: 'Concrete CMS', plone: 'Plone',
  orchard: 'Orchard Core', hugo: 'Hugo', gatsby: 'Gatsby', imagevault: 'ImageVault',
  nginx: 'nginx', openresty: 'OpenResty', apache: 'Apache httpd', iis: 'Microsoft IIS', litespeed: 'LiteSpeed',
  varnish: 'Varnish', tomcat: 'Apache Tomcat', caddy: 'Caddy', kestrel: 'Kestrel', jetty: 'Jetty', envoy: 'Envoy',
  'microsoft-httpapi': 'Microsoft HTTPAPI', cowboy: 'Cowboy',
  'windows-server': 'Windows Server', windows: 'Windows', ubuntu: 'Ubuntu', debian: 'Debian', centos: 'CentOS',
  'red-hat': 'Red Hat Enterprise Linux', fedora: 'Fedora', freebsd: 'FreeBSD',
  php: 'PHP', 'asp.net': 'ASP.NET', 'asp.net-core': 'ASP.NET Core', 'asp.net-mvc': 'ASP.NET MVC', asp: 'Classic ASP',
  java: 'Java', openssl: 'OpenSSL', express: 'Express', 'node.js': 'Node.js',
  'next.js': 'Next.js', nuxt: 'Nuxt', jquery: 'jQuery', 'jquery-ui': 'jQuery UI', 'jquery-migrate': 'jQuery Migrate',
  'jquery-mobile': 'jQuery Mobile', 'jquery-validation': 'jQuery Validation', bootstrap: 'Bootstrap',
  angularjs: 'AngularJS', 'moment.js': 'Moment.js', 'underscore.js': 'Underscore.js', lodash: 'Lodash', vue: 'Vue',
  react: 'React', 'react-dom': 'React DOM', handlebars: 'Handlebars', 'backbone.js': 'Backbone.js', knockout: 'Knockout',
  dompurify: 'DOMPurify', tinymce: 'TinyMCE', ckeditor: 'CKEditor', 'chart.js': 'Chart.js', axios: 'axios',
  accessibe: 'AccessiBe', accessiway: 'AccessiWay', equalweb: 'EqualWeb', userway: 'UserWay', audioeye: 'AudioEye',
  'eye-able': 'Eye-Able', accessibly: 'Accessibly', easeaccess24: 'WCAGready/EaseAccess24', 'elementor-ally': 'Ally (Elementor)',
  woocommerce: 'WooCommerce', elementor: 'Elementor',
};

export function displayName(key: string): string {
  return NAMES[key] ?? key;
}

/** Accessibility overlays: scripts that claim to fix a site's accessibility on top of it. */
const OVERLAYS: UrlRule[] = [
  { id: 'overlay-accessiway', re: onHost('acswapp.com', 'accessiway.com'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'accessiway' }] },
  { id: 'overlay-accessibe', re: onHost('acsbapp.com', 'accessibe.com'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'accessibe' }] },
  { id: 'overlay-equalweb', re: onHost('nagich.com', 'nagich.co.il', 'equalweb.com'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'equalweb' }] },
  { id: 'overlay-userway', re: onHost('userway.org'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'userway' }] },
  { id: 'overlay-audioeye', re: onHost('audioeye.com'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'audioeye' }] },
  // The self-hosted script: `/eyeable/ea_dynamicloading_…`, or a path holding `/eyeable/` and
  // `eyeable.js`, checked from the start once (a lookahead), not from every `/eyeable/` to the end.
  { id: 'overlay-eye-able', re: /^https?:\/\/(?:[^/?#@]*\.)?eye-able(?:-cdn)?\.com(?::\d+)?(?:[/?#]|$)|\/eyeable\/ea_dynamicloading_|^(?=[^?#]*\/eyeable\/)[^?#]*eyeable\.js/, anyHost: true, yields: [{ category: 'a11y_overlay', key: 'eye-able' }] },
  { id: 'overlay-accessibly', re: onHost('accessibly.app'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'accessibly' }] },
  { id: 'overlay-easeaccess24', re: onHost('easeaccess24.com', 'wcagready.com'), anyHost: true, yields: [{ category: 'a11y_overlay', key: 'easeaccess24' }] },
  { id: 'overlay-elementor-ally', re: /^https?:\/\/(?:[^/?#@]*\.)?elementor\.com(?::\d+)?\/a11y\//, anyHost: true, yields: [{ category: 'a11y_overlay', key: 'elementor-ally' }] },
];

/** Request URLs (lower-cased). Path rules apply to the page's own site only. */
export const URL_RULES: readonly UrlRule[] = [
  ...OVERLAYS,
  { id: 'episerver-assets', re: /\/(?:contentassets|globalassets|siteassets)\//, yields: [cms('episerver'), tech('asp.net')] },
  { id: 'episerver-path', re: /\/(?:episerver|epi-util)\//, yields: [cms('episerver'), tech('asp.net')] },
  { id: 'episerver-find', re: onHost('dl.episerver.net'), anyHost: true, yields: [cms('episerver')] },
  { id: 'sitevision-path', re: /\/sitevision\//, yields: [cms('sitevision'), tech('java')] },
  { id: 'wordpress-path', re: /\/wp-(?:content|includes)\//, yields: [cms('wordpress'), tech('php')] },
  { id: 'wordpress-plugin', re: /\/wp-content\/plugins\/(?<name>[a-z0-9][a-z0-9_.-]*)\//, yields: [{ category: 'wordpress-plugin', version: null }] },
  { id: 'wordpress-theme', re: /\/wp-content\/themes\/(?<name>[a-z0-9][a-z0-9_.-]*)\//, yields: [{ category: 'wordpress-theme', version: null }] },
  { id: 'drupal-path', re: /\/sites\/(?:default|all)\/(?:files|modules|themes)\/|\/core\/misc\/drupal(?:\.init)?\.js|\/misc\/drupal\.js|\/core\/themes\/(?:olivero|claro|stable9?|classy)\//, yields: [cms('drupal'), tech('php')] },
  // Anchored, so that the path is read once: unanchored, `.png?` repeated made it rescan the rest
  // of the URL from each one (160 KB took 5 s). The image is the path's; itok is a query parameter.
  { id: 'drupal-image-style', re: /^[^?#]*\.(?:jpe?g|png|gif|webp)\?(?:[^#]*&)?itok=/, yields: [cms('drupal')] },
  { id: 'umbraco-path', re: /\/(?:umbraco|app_plugins)\//, yields: [cms('umbraco'), tech('asp.net')] },
  { id: 'joomla-path', re: /\/media\/(?:jui|system)\/(?:js|css)\/|\/components\/com_[a-z0-9_]+\//, yields: [cms('joomla'), tech('php')] },
  { id: 'typo3-path', re: /\/(?:typo3temp|typo3conf|typo3)\//, yields: [cms('typo3'), tech('php')] },
  { id: 'sitecore-path', re: /\/-\/media\/|\/sitecore\//, yields: [cms('sitecore'), tech('asp.net')] },
  { id: 'imagevault-path', re: /\/imagevault\//, yields: [tech('imagevault'), tech('asp.net')] },
  { id: 'aspnet-extension', re: /\.(?:aspx|ashx|asmx|axd)(?:[?#]|$)/, yields: [tech('asp.net')] },
  { id: 'php-extension', re: /\.php(?:[?#]|$)/, yields: [tech('php')] },
  { id: 'java-extension', re: /\.(?:jsp|do)(?:[?#;]|$)|;jsessionid=/, yields: [tech('java')] },
  { id: 'nextjs-path', re: /\/_next\/static\//, yields: [{ category: 'js', key: 'next.js', version: null }] },
  { id: 'nuxt-path', re: /\/_nuxt\//, yields: [{ category: 'js', key: 'nuxt', version: null }] },
];

/** Windows Server per IIS version (IIS ships with it); IIS 10.0 runs on 2016 and later, not told apart. */
export const IIS_WINDOWS: Record<string, string | null> = { '6.0': '2003', '7.0': '2008', '7.5': '2008 R2', '8.0': '2012', '8.5': '2012 R2', '10.0': null };

const OS_NAMES: Record<string, string> = {
  ubuntu: 'ubuntu', debian: 'debian', centos: 'centos', 'red hat': 'red-hat', rhel: 'red-hat', fedora: 'fedora',
  freebsd: 'freebsd', win64: 'windows', win32: 'windows',
};

/** Response headers (values lower-cased) of the page's own site. */
export const HEADER_RULES: readonly HeaderRule[] = [
  {
    id: 'server-iis', header: 'server', re: new RegExp(String.raw`(?:^|\s)microsoft-iis(?:/(?<version>\d+\.\d+))?`),
    yields: (g) => {
      const os = g.version && g.version in IIS_WINDOWS ? IIS_WINDOWS[g.version] : undefined;
      return [{ category: 'webserver', key: 'iis' }, { category: 'os', key: os ? 'windows-server' : 'windows', version: os ?? null }];
    },
  },
  { id: 'server-httpapi', header: 'server', re: new RegExp(String.raw`(?:^|\s)microsoft-httpapi(?:/${V})?`), yields: [{ category: 'webserver', key: 'microsoft-httpapi' }, { category: 'os', key: 'windows', version: null }] },
  { id: 'server-nginx', header: 'server', re: new RegExp(String.raw`(?:^|\s)nginx(?:/${V})?`), yields: [{ category: 'webserver', key: 'nginx' }] },
  { id: 'server-openresty', header: 'server', re: new RegExp(String.raw`(?:^|\s)openresty(?:/${V})?`), yields: [{ category: 'webserver', key: 'openresty' }] },
  { id: 'server-tomcat', header: 'server', re: /(?:^|\s)apache-coyote\b/, yields: [{ category: 'webserver', key: 'tomcat', version: null }, tech('java')] },
  { id: 'server-apache', header: 'server', re: new RegExp(String.raw`(?:^|\s)apache(?:/${V})?(?=[\s(]|$)`), yields: [{ category: 'webserver', key: 'apache' }] },
  { id: 'server-litespeed', header: 'server', re: /(?:^|\s)(?:litespeed|lsws)\b/, yields: [{ category: 'webserver', key: 'litespeed', version: null }] },
  { id: 'server-varnish', header: 'server', re: /(?:^|\s)varnish\b/, yields: [{ category: 'webserver', key: 'varnish', version: null }] },
  { id: 'server-caddy', header: 'server', re: /(?:^|\s)caddy\b/, yields: [{ category: 'webserver', key: 'caddy', version: null }] },
  { id: 'server-kestrel', header: 'server', re: /(?:^|\s)kestrel\b/, yields: [{ category: 'webserver', key: 'kestrel', version: null }, tech('asp.net-core')] },
  { id: 'server-jetty', header: 'server', re: new RegExp(String.raw`(?:^|\s)jetty(?:\(${V})?`), yields: [{ category: 'webserver', key: 'jetty' }, tech('java')] },
  { id: 'server-envoy', header: 'server', re: /(?:^|\s)envoy\b/, yields: [{ category: 'webserver', key: 'envoy', version: null }] },
  { id: 'server-cowboy', header: 'server', re: /(?:^|\s)cowboy\b/, yields: [{ category: 'webserver', key: 'cowboy', version: null }] },
  {
    id: 'server-os', header: 'server', re: /\((?<name>ubuntu|debian|centos|red hat|rhel|fedora|freebsd|win64|win32)[^)]*\)/,
    yields: (g) => [{ category: 'os', key: OS_NAMES[g.name ?? ''] ?? g.name, version: null }],
  },
  { id: 'server-php', header: 'server', re: new RegExp(String.raw`(?:^|\s)php/${V}`), yields: [{ category: 'tech', key: 'php' }] },
  { id: 'server-openssl', header: 'server', re: new RegExp(String.raw`(?:^|\s)openssl/${V}`), yields: [{ category: 'tech', key: 'openssl' }] },
  { id: 'powered-by-php', header: 'x-powered-by', re: new RegExp(String.raw`(?:^|[\s,])php(?:/${V})?`), yields: [{ category: 'tech', key: 'php' }] },
  { id: 'powered-by-aspnet', header: 'x-powered-by', re: /(?:^|[\s,])asp\.net\b/, yields: [tech('asp.net')] },
  { id: 'powered-by-express', header: 'x-powered-by', re: /(?:^|[\s,])express\b/, yields: [tech('express'), tech('node.js')] },
  { id: 'powered-by-nextjs', header: 'x-powered-by', re: /(?:^|[\s,])next\.js\b/, yields: [{ category: 'js', key: 'next.js', version: null }] },
  { id: 'powered-by-java', header: 'x-powered-by', re: /\b(?:servlet|jsp)\b/, yields: [tech('java')] },
  { id: 'aspnet-version', header: 'x-aspnet-version', re: /\d/, yields: [tech('asp.net')] },
  { id: 'aspnetmvc-version', header: 'x-aspnetmvc-version', re: new RegExp(`^${V}`), yields: [{ category: 'tech', key: 'asp.net-mvc' }, tech('asp.net')] },
  { id: 'generator-drupal', header: 'x-generator', re: /^drupal(?:\s+(?<version>\d+))?/, yields: [{ category: 'cms', key: 'drupal' }, tech('php')] },
  { id: 'drupal-cache', header: 'x-drupal-cache', re: /./, yields: [cms('drupal'), tech('php')] },
  { id: 'drupal-dynamic-cache', header: 'x-drupal-dynamic-cache', re: /./, yields: [cms('drupal'), tech('php')] },
  { id: 'x-varnish', header: 'x-varnish', re: /\d/, yields: [{ category: 'webserver', key: 'varnish', version: null }] },
  { id: 'via-varnish', header: 'via', re: /\bvarnish\b/, yields: [{ category: 'webserver', key: 'varnish', version: null }] },
  { id: 'litespeed-cache', header: 'x-litespeed-cache', re: /./, yields: [{ category: 'webserver', key: 'litespeed', version: null }] },
  { id: 'redirect-by-wordpress', header: 'x-redirect-by', re: /^wordpress\b/, yields: [cms('wordpress'), tech('php')] },
  { id: 'pingback-wordpress', header: 'x-pingback', re: /\/xmlrpc\.php\b/, yields: [cms('wordpress'), tech('php')] },
  { id: 'link-wordpress-api', header: 'link', re: /rel="?https:\/\/api\.w\.org\/"?/, yields: [cms('wordpress'), tech('php')] },
];

/** The served HTML of the start page (case-insensitive). */
export const HTML_RULES: readonly Rule[] = [
  { id: 'episerver-link', re: /\/link\/[0-9a-f]{32}\.aspx/i, yields: [cms('episerver'), tech('asp.net')] },
  { id: 'episerver-assets', re: /(?:\/|%2f)(?:contentassets|globalassets|siteassets)(?:\/|%2f)/i, yields: [cms('episerver'), tech('asp.net')] },
  { id: 'sitevision-markup', re: /\/sitevision\/|\bclass="[^"]*\bsv-(?:layout|portlet|text-portlet)\b/i, yields: [cms('sitevision'), tech('java')] },
  { id: 'drupal-settings', re: /data-drupal-selector="drupal-settings-json"|\bdrupalSettings\b/i, yields: [cms('drupal'), tech('php')] },
];

/** `<meta name="generator">` contents. */
export const GENERATOR_RULES: readonly Rule[] = [
  { id: 'generator-wordpress', re: new RegExp(String.raw`^wordpress(?:\s+${V})?`, 'i'), yields: [{ category: 'cms', key: 'wordpress' }, tech('php')] },
  { id: 'generator-woocommerce', re: new RegExp(String.raw`^woocommerce(?:\s+${V})?`, 'i'), yields: [{ category: 'wordpress-plugin', key: 'woocommerce' }, cms('wordpress')] },
  { id: 'generator-elementor', re: new RegExp(String.raw`^elementor(?:\s+${V})?`, 'i'), yields: [{ category: 'wordpress-plugin', key: 'elementor' }, cms('wordpress')] },
  { id: 'generator-joomla', re: /^joomla!?/i, yields: [cms('joomla'), tech('php')] },
  { id: 'generator-drupal', re: /^drupal(?:\s+(?<version>\d+))?/i, yields: [{ category: 'cms', key: 'drupal' }, tech('php')] },
  { id: 'generator-typo3', re: /^typo3(?:\s+(?<version>\d+(?:\.\d+)*))?/i, yields: [{ category: 'cms', key: 'typo3' }, tech('php')] },
  { id: 'generator-episerver', re: /^(?:episerver|optimizely)/i, yields: [cms('episerver'), tech('asp.net')] },
  { id: 'generator-umbraco', re: /^umbraco/i, yields: [cms('umbraco'), tech('asp.net')] },
  { id: 'generator-sitevision', re: /^sitevision/i, yields: [cms('sitevision'), tech('java')] },
  { id: 'generator-sitecore', re: /^sitecore/i, yields: [cms('sitecore'), tech('asp.net')] },
  { id: 'generator-wix', re: /^wix\.com/i, yields: [cms('wix')] },
  { id: 'generator-webflow', re: /^webflow/i, yields: [cms('webflow')] },
  { id: 'generator-squarespace', re: /^squarespace/i, yields: [cms('squarespace')] },
  { id: 'generator-ghost', re: new RegExp(String.raw`^ghost(?:\s+${V})?`, 'i'), yields: [{ category: 'cms', key: 'ghost' }] },
  { id: 'generator-contao', re: /^contao/i, yields: [cms('contao'), tech('php')] },
  { id: 'generator-concrete', re: /^concrete(?:5|\s*cms)/i, yields: [cms('concrete'), tech('php')] },
  { id: 'generator-plone', re: /^plone/i, yields: [cms('plone')] },
  { id: 'generator-orchard', re: /^orchard/i, yields: [cms('orchard'), tech('asp.net')] },
  { id: 'generator-hugo', re: new RegExp(String.raw`^hugo(?:\s+${V})?`, 'i'), yields: [{ category: 'tech', key: 'hugo' }] },
  { id: 'generator-gatsby', re: new RegExp(String.raw`^gatsby(?:\s+${V})?`, 'i'), yields: [{ category: 'tech', key: 'gatsby' }] },
  { id: 'generator-nextjs', re: /^next\.js/i, yields: [{ category: 'js', key: 'next.js', version: null }] },
];

/** Cookie names (case-insensitive) of the page's own site. */
export const COOKIE_RULES: readonly Rule[] = [
  { id: 'cookie-jsessionid', re: /^jsessionid$/i, yields: [tech('java')] },
  { id: 'cookie-phpsessid', re: /^phpsessid$/i, yields: [tech('php')] },
  { id: 'cookie-aspnet-session', re: /^asp\.net_sessionid$/i, yields: [tech('asp.net')] },
  { id: 'cookie-aspnetcore', re: /^\.aspnetcore\./i, yields: [tech('asp.net-core')] },
  { id: 'cookie-classic-asp', re: /^aspsessionid/i, yields: [tech('asp')] },
  { id: 'cookie-episerver', re: /^(?:\.epiform_|epi:?statemarker)/i, yields: [cms('episerver'), tech('asp.net')] },
  { id: 'cookie-sitevision', re: /^sitevisionltm$/i, yields: [cms('sitevision'), tech('java')] },
  { id: 'cookie-drupal-session', re: /^s?sess[0-9a-f]{32}$/i, yields: [cms('drupal'), tech('php')] },
  { id: 'cookie-wordpress', re: /^(?:wordpress_|wp-settings-)/i, yields: [cms('wordpress'), tech('php')] },
  { id: 'cookie-umbraco', re: /^(?:umb_ucontext|umb-xsrf-token)$/i, yields: [cms('umbraco'), tech('asp.net')] },
  { id: 'cookie-sitecore', re: /^sc_analytics_global_cookie$/i, yields: [cms('sitecore'), tech('asp.net')] },
  { id: 'cookie-typo3', re: /^fe_typo_user$/i, yields: [cms('typo3'), tech('php')] },
];

/**
 * A library's banner comment at the top of a script (`/*! name v1.2.3`, `/** @license name 1.2.3`),
 * for libraries RetireJS does not know; read from the first 500 characters only.
 */
export const BANNER = /^\s*\/\*[!*]\s*(?:@license\s+)?(?<name>[a-z][\w.-]*(?:\s[a-z][\w.-]*){0,2}?)(?:\.js)?\s+(?:-\s+)?v?(?<version>\d+\.\d+(?:\.\d+)?)\b/i;

/** Applies a rule's yields to a match. */
export function yieldsOf(rule: Rule, groups: Groups): Yield[] {
  const list = typeof rule.yields === 'function' ? rule.yields(groups) : rule.yields;
  const out: Yield[] = [];
  for (const y of list) {
    const key = y.key ?? groups.name;
    if (!key) continue;
    out.push({ category: y.category, key: normaliseKey(key), version: y.version === undefined ? groups.version ?? null : y.version });
  }
  return out;
}

/** A software key as the data files spell it: lower case, words joined by '-'. */
export function normaliseKey(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

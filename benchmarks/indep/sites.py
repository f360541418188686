"""Simulated web sites and the pages they render: header, menu, byline, body layout, related list, footer.

A site is a dict of its habits (drawn once by ``make_sites``); ``render`` turns an article version
into the text a crawler would extract from that site's page.
"""

from __future__ import annotations

import datetime
import random
import zlib
from typing import Any

from edits import halfwidth, hard_wrap
from words import (
    EN_AUTH,
    EN_BOILER,
    EN_NAV,
    EN_PRE,
    EN_SUF,
    EN_TAGS,
    ZH_AUTH,
    ZH_BOILER,
    ZH_NAV,
    ZH_PRE,
    ZH_PROV,
    ZH_SUF,
    ZH_TAGS,
)

Site = dict[str, Any]
#: Page context: date (days since 2021-01-01), author, views, ncomments, related titles, year, date_min,
#: section, extra_top / extra_bottom lines, excerpt, print.
Context = dict[str, Any]


def _unique_name(rng: random.Random, lang: str, used: set[str]) -> str:
    while True:
        name = rng.choice(ZH_PRE) + rng.choice(ZH_SUF) if lang == "zh" else rng.choice(EN_PRE) + rng.choice(EN_SUF)
        if name not in used:
            used.add(name)
            return name


def _domain(rng: random.Random, lang: str) -> str:
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 8)))
    number = rng.randint(1, 99)
    tlds = ["com", "net", "cn", "org", "com.cn", "io"] if lang == "zh" else ["com", "net", "org", "io", "co.uk", "dev"]
    return f"www.{letters}{number:d}.{rng.choice(tlds)}"


def _site(rng: random.Random, lang: str, name: str, dom: str) -> Site:
    """The habits of one site. The keys are drawn in the order written: do not reorder them."""
    r = rng.random()
    chrome = 0 if r < 0.15 else (1 if r < 0.55 else 2)  # none / light / heavy
    boiler = ZH_BOILER if lang == "zh" else EN_BOILER
    return {
        "name": name,
        "domain": dom,
        "chrome": chrome,
        "lang": lang,
        "nav": rng.sample(ZH_NAV if lang == "zh" else EN_NAV, rng.randint(4, 9)),
        "navsep": rng.choice([" | ", " / ", "  ", " · ", "\n", " > "]),
        "login": rng.random() < 0.5,
        "slogan": rng.random() < 0.4,
        "crumb": rng.random() < 0.5,
        "title_style": rng.choice(["plain", "plain", "site_dash", "site_under", "bracket", "none"]),
        "glue": rng.random() < 0.12,  # site name glued to the first paragraph
        "byline": rng.random() < 0.7,
        "datefmt": rng.randrange(5),
        "views": rng.random() < 0.5,
        "parasep": rng.choice(["\n\n", "\n\n", "\n", "\n\n\n", "\n \n"]),
        "indent": lang == "zh" and rng.random() < 0.2,
        "wrap": rng.choice([0, 0, 0, 0, 0, 0, rng.randint(40, 80)]),
        "halfwidth": lang == "zh" and rng.random() < 0.12,
        "boiler": rng.sample(range(len(boiler)), rng.choice([0, 0, 1, 1, 2, 3]) if chrome else rng.choice([0, 1])),
        "related": rng.choice([0, 0, 3, 4, 5, 6, 8]) if chrome else 0,
        "tags": rng.random() < 0.5,
        "share": rng.random() < 0.45,
        "comments": rng.random() < 0.5,
        "icp": f"{rng.choice(ZH_PROV)}ICP备{rng.randint(10**7, 10**8 - 1):08d}号-{rng.randint(1, 3):d}",
        "gongan": rng.random() < 0.5,
        "since": rng.randint(2005, 2016),
        "email": rng.choice(["contact", "admin", "editor", "service", "tougao", "webmaster"]) + "@" + dom[4:],
        "footer_var": rng.randrange(4),
        "readmore": rng.random() < 0.25,
        "print_variant": rng.random() < 0.3,
    }


def make_sites(rng: random.Random, lang: str, n: int) -> list[Site]:
    """``n`` sites of language ``lang`` ('zh' or 'en') with distinct names."""
    used: set[str] = set()
    sites = []
    for _ in range(n):
        name = _unique_name(rng, lang, used)
        sites.append(_site(rng, lang, name, _domain(rng, lang)))
    return sites


def fmt_date(site: Site, t: float) -> str:
    """Day ``t`` (days since 2021-01-01) in the site's date format."""
    d = datetime.datetime(2021, 1, 1) + datetime.timedelta(days=t)
    if site["lang"] == "zh":
        formats = ["%Y-%m-%d %H:%M", "%Y年%m月%d日", "%Y/%m/%d", "%Y-%m-%d", "%Y年%m月%d日 %H:%M"]
    else:
        formats = ["%B %d, %Y", "%Y-%m-%d", "%d %b %Y", "%b %d, %Y %I:%M %p", "%m/%d/%Y"]
    return d.strftime(formats[site["datefmt"]])


def _header(site: Site, rng: random.Random, ctx: Context, chrome: int, zh: bool) -> list[str]:
    """Site name, menu, login links and breadcrumbs (or the printer-friendly banner)."""
    out = []
    if chrome >= 1:
        slogan = "专注开源技术分享" if zh else "news and tutorials for Linux users"
        out.append(site["name"] + (" — " + slogan if site["slogan"] else ""))
        out.append(site["navsep"].join(site["nav"]))
        if site["login"] and chrome == 2:
            logins = (
                ["登录 | 注册", "登录  注册  投稿", "请登录 免费注册"]
                if zh
                else ["Log in | Sign up", "Sign in  Register", "Login / Subscribe"]
            )
            out.append(rng.choice(logins))
        if site["crumb"]:
            sec = ctx.get("section") or site["nav"][min(1, len(site["nav"]) - 1)]
            out.append(("当前位置：首页 > %s > 正文" if zh else "Home > %s > Article") % sec)
    elif ctx.get("print"):
        out.append(site["name"] + (" - 打印版" if zh else " - Printer friendly version"))
    return out


def _title(site: Site, title: str | None, chrome: int, zh: bool) -> list[str]:
    if not title:
        return []
    style = site["title_style"]
    if style == "site_dash":
        return [f"{title} - {site['name']}"]
    if style == "site_under":
        return [f"{title}_{site['name']}"]
    if style == "bracket":
        return [("【%s】" if zh else "[%s]") % title]
    if style == "none" and chrome == 0:
        return []
    return [title]


def _byline(site: Site, rng: random.Random, ctx: Context, chrome: int, zh: bool) -> list[str]:
    """Date, author and view count (heavy and light chrome); a bare date on some plain pages."""
    if chrome >= 1 and site["byline"]:
        date = fmt_date(site, ctx["date"])
        author = ctx.get("author") or rng.choice(ZH_AUTH if zh else EN_AUTH)
        if zh:
            line = rng.choice(["发布时间：%s  作者：%s", "%s  来源：本站原创  作者：%s", "时间：%s 编辑：%s"]) % (
                date,
                author,
            )
            if site["views"]:
                line += f"  阅读：{ctx['views']:d} 次"
        else:
            line = rng.choice(["Posted on %s by %s", "%s | By %s", "Published %s - Written by %s"]) % (date, author)
            if site["views"]:
                line += f" | {ctx['views']:d} views"
        return [line]
    if chrome == 0 and ctx.get("date_min"):
        return [fmt_date(site, ctx["date"])]
    return []


def _body(site: Site, paras: list[str], zh: bool) -> str:
    """The paragraphs in the site's layout: glued name, half-width punctuation, indent, wrapping, separators."""
    paras = list(paras)
    if site["glue"] and paras:
        paras[0] = (f"【{site['name']}】" if zh else site["name"].upper() + " — ") + paras[0]
    if site["halfwidth"]:
        paras = [halfwidth(p) for p in paras]
    if site["indent"]:
        paras = ["\u3000\u3000" + p for p in paras]
    if site["wrap"]:
        paras = [hard_wrap(p, site["wrap"], zh) for p in paras]
    return site["parasep"].join(paras)


def _after_body(site: Site, rng: random.Random, ctx: Context, zh: bool) -> list[str]:
    """Read more, tags, share buttons, comment count, related articles and the shared notices."""
    out = []
    if site["readmore"] and ctx.get("excerpt"):
        out.append("阅读全文" if zh else "Read more »")
    if site["tags"]:
        tags = rng.sample(ZH_TAGS if zh else EN_TAGS, rng.randint(2, 5))
        out.append(("标签：" if zh else "Tags: ") + (" ".join(tags) if zh else ", ".join(tags)))
    if site["share"]:
        out.append("分享到：微信 微博 QQ空间 复制链接" if zh else "Share: Facebook Twitter LinkedIn Email")
    if site["comments"]:
        out.append(("评论（%d）" if zh else "%d Comments") % ctx["ncomments"])
    if ctx.get("related"):
        out.append("相关文章" if zh else rng.choice(["Related posts", "You may also like", "Related Articles"]))
        out += [("· " if zh else "- ") + t for t in ctx["related"]]
    out += [(ZH_BOILER if zh else EN_BOILER)[b] for b in site["boiler"]]
    return out


def _footer(site: Site, ctx: Context, chrome: int, zh: bool) -> list[str]:
    """Copyright line; heavy chrome adds the footer menu and a contact address; Chinese sites their ICP number."""
    y, name, dom = ctx.get("year", 2023), site["name"], site["domain"]
    if zh:
        copyright_lines = [
            f"Copyright © {site['since']:d}-{y:d} {name} 版权所有",
            f"© {y:d} {name} {dom} 保留所有权利",
            f"{name}（{dom}）版权所有 {y:d}",
            f"Copyright {y:d} {dom} All Rights Reserved.",
        ]
        menu, contact = "关于我们 | 联系我们 | 广告服务 | 免责声明 | 网站地图", "联系邮箱："
    else:
        copyright_lines = [
            f"Copyright © {site['since']:d}-{y:d} {name}. All rights reserved.",
            f"© {y:d} {name}",
            f"{name} is an independent publication. © {y:d}",
            f"Copyright {y:d} {dom} | Powered by WordPress",
        ]
        menu, contact = "About | Contact | Privacy Policy | Terms of Use | Advertise", "Contact: "
    out = [copyright_lines[site["footer_var"]]]
    if chrome == 2:
        out += [menu, contact + site["email"]]
    if zh:
        gongan = f"  {site['icp'][0]}公网安备 {11010502000000 + zlib.crc32(dom.encode()) % 99999:d}号"
        out.append(site["icp"] + (gongan if site["gongan"] else ""))
    return out


def render(site: Site, rng: random.Random, title: str | None, body_paras: list[str], ctx: Context) -> str:
    """The text of the page ``site`` shows for an article version (``title`` None: the page has no title)."""
    zh = site["lang"] == "zh"
    chrome = 0 if ctx.get("print") else site["chrome"]
    out = _header(site, rng, ctx, chrome, zh)
    out += _title(site, title, chrome, zh)
    out += _byline(site, rng, ctx, chrome, zh)
    out += ctx.get("extra_top", [])
    out.append(_body(site, body_paras, zh))
    out += ctx.get("extra_bottom", [])
    if chrome >= 1:
        out += _after_body(site, rng, ctx, zh)
        out += _footer(site, ctx, chrome, zh)
    return "\n".join(out)
